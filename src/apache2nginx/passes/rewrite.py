"""mod_rewrite: RewriteEngine, RewriteCond, RewriteRule, RewriteBase, RewriteOptions, RewriteMap.

Rules are collected per context (a virtual host, the main server, or a
per-directory context such as a `.htaccess` file) and compiled once the whole
context is read, because RewriteEngine and RewriteBase apply wherever they
stand.

Idioms become idiomatic nginx before anything generic is tried:
- force-HTTPS (`%{HTTPS} off` + redirect to https) is decided per server —
  always true on a plain-HTTP server, never on a TLS one — and becomes a
  plain `return 301`;
- canonical-host redirects on a literal host become a server of their own;
- front controllers (`!-f` + `!-d` + rewrite to one script) become `try_files`;
- runs of literal-path redirects collapse into one `map`.

Everything else is compiled rule by rule, in order, at the phase httpd runs
it (server context: before location selection, like translate_name): each
rule's conditions set flag variables (nginx `if` has no AND/OR or nesting)
and one `rewrite`/`return` acts on them. Query strings follow httpd: a
substitution with `?` replaces the query unless QSA (so a trailing `?` stops
nginx appending it), QSD drops it. httpd 2.4.60+'s refusals of unsafe results (a `?` or a space the request
brings into the query) are answered with 403 where httpd answers so (rewrite_unsafe), and redirect targets are
escaped as httpd escapes them. Constructs nginx cannot express are errors.
"""
from __future__ import annotations

import re

from ..diagnostics import Diagnostics
from ..model import Location, MapBlock, Server, Stmt, routes_in_force
from ..syntax.tree import Directive
from .base import Context, Disposition, clean_url, flag, Rule, table
from .pcre import httpd_refuses
from .fallback import FALLBACK_PASS, falls_back, subrequest_pass
from . import rewrite_dirindex as dirindex
from .rewrite_compile import DIR_METHOD, METHOD, Compiler, Unsupported, _apart, _map_key, cond_operator
from .rewrite_handler import per_directory_access
from . import rewrite_merge
from .rewrite_compile import _quote_regex
from .rewrite_location_headers import (REFUSED_RULE, carry_dirslash_headers, carry_location_error_pages,
                                       carry_location_headers, carry_proxy_headers, carry_refusal_headers,
                                       carry_rewrite_headers, header_scopes, refused_directory_headers,
                                       refused_rule_results, rewrite_pass_again)
from .rewrite_prefix import record_env, server_env
from .vhost_alias import server_name_variable
from .rewrite_idioms import (_split_canonical, _script_passthrough, captures_slash, fold_proxy_env,
                             front_controller, literal_redirect, qmark_refusal, static_https,
                             whole_site_redirect)
from .rewrite_model import (ALIAS_REFUSAL, COND_FLAGS, DIRECTORY_REFUSAL, END_MARK, LOCATION_REFUSAL, PER_DIRECTORY,
                            RULE_FLAGS, ends_rewriting,
                            SYMLINKS_REFUSAL, SYMLINKS_REFUSAL_BELOW, SYMLINKS_UNPLACED, _LONG, _MATCH_ALL, _WHOLE,
                            _status, Cond, flag_values, RewriteContext, RewriteMapDef, RRule, _bracketed, _flags,
                            _normalise, read_txt_map, REWRITE_FILE, REWRITE_URI)
from ..syntax.parser import read_text

__all__ = ["RULES", "PER_DIRECTORY", "finish_server", "finish_model"]


def _state(ctx: Context) -> RewriteContext:
    if ctx.directory is not None:
        states = ctx.server.settings.setdefault("directory_rewrites", {})
        key = id(ctx.directory)
        if key not in states:
            args = ctx.directory.args
            states[key] = RewriteContext(directory=args[0] if args else "",
                                         literal=ctx.directory.name.lower() == "directory" and args[:1] != ["~"])
        return states[key]
    holder = ctx.scope.settings if ctx.scope is not None else ctx.server.settings
    if "rewrite" not in holder:
        holder["rewrite"] = RewriteContext(per_dir=ctx.options.get("htaccess_dir"))
    return holder["rewrite"]


# ----------------------------------------------------------------- directive handlers

def rewrite_engine(ctx: Context, d: Directive) -> Disposition:
    state = _state(ctx)
    value = flag(d)
    if value not in ("on", "off"):
        ctx.diags.add("A2N001", "RewriteEngine takes on or off", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    state.engine, state.engine_span = value == "on", d.span
    ctx.options["rewrite_engine_mentioned"] = True
    return Disposition.EXACT


def rewrite_cond(ctx: Context, d: Directive) -> Disposition:
    if ctx.scope is not None and ctx.directory is None:
        return _in_location(ctx, d)
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "RewriteCond needs a test string and a condition", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if len(d.args) > 2 and not _bracketed(d.args[2]):
        ctx.diags.add("A2N001", f"RewriteCond flags {d.args[2]!r} are not in [brackets]: httpd refuses the "
                      "configuration (bad flag delimiters)", d.arg_span(2), directive=d.name,
                      hint="quote a pattern that holds a space, e.g. \"-gt 10\"")
        return Disposition.UNSUPPORTED
    flags = {f.upper() for f in _flags(d.args[2] if len(d.args) > 2 else None)}
    flags = {_LONG.get(f, f) for f in flags}
    unknown = sorted(flags - COND_FLAGS)
    if unknown:
        ctx.diags.add("A2N001", f"RewriteCond: unknown flag {unknown[0]!r}; httpd refuses the configuration",
                      d.arg_span(2), directive=d.name)
        return Disposition.UNSUPPORTED
    refused = _cond_regex_refused(d.args[0], d.args[1])
    if refused is not None:
        ctx.diags.add("A2N001", f"RewriteCond: cannot compile regular expression {refused[0]!r} ({refused[1]}); "
                      "httpd refuses the configuration", d.arg_span(1), directive=d.name)
        _state(ctx).pending.append(Cond(d.args[0], "!", flags, d.span, d, refused=True))
        return Disposition.UNSUPPORTED
    _state(ctx).pending.append(Cond(d.args[0], d.args[1], flags, d.span, d))
    _state(ctx).directives.append(d)
    return Disposition.EXACT


def rewrite_rule(ctx: Context, d: Directive) -> Disposition:
    if ctx.scope is not None and ctx.directory is None:
        return _in_location(ctx, d)
    state = _state(ctx)
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "RewriteRule needs a pattern and a substitution", d.span, directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    if len(d.args) > 2 and not _bracketed(d.args[2]):
        ctx.diags.add("A2N001", f"RewriteRule flags {d.args[2]!r} are not in [brackets]: httpd refuses the "
                      "configuration (bad flag delimiters)", d.arg_span(2), directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    flags = _normalise(_flags(d.args[2] if len(d.args) > 2 else None))
    unknown = sorted(f for f in flags if f not in RULE_FLAGS)
    if unknown:
        ctx.diags.add("A2N001", f"RewriteRule: unknown flag {unknown[0]!r}; httpd refuses the configuration",
                      d.arg_span(2), directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    refused = next((c for c in state.pending if c.refused), None)
    if refused is not None:
        # httpd does not start: nothing is emitted for the rule the condition governs
        ctx.diags.add("A2N001", f"RewriteRule {d.args[0]}: not emitted: its RewriteCond (line {refused.span.line}) "
                      "has a regular expression httpd cannot compile", d.span, directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    pattern = d.args[0][1:] if d.args[0].startswith("!") else d.args[0]
    why = httpd_refuses(pattern)
    if why is not None:
        ctx.diags.add("A2N001", f"RewriteRule: cannot compile regular expression {pattern!r} ({why}); httpd "
                      "refuses the configuration", d.arg_span(0), directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    for setting in flag_values(flags, "E"):
        ctx.options.setdefault("rewrite_env", set()).add(setting.lstrip("!").partition(":")[0])
    if len(d.args) > 3:
        ctx.diags.add("A2N801", f"RewriteRule has {len(d.args)} arguments; httpd refuses more than three "
                      "(a comment after the flags?)", d.span, directive=d.name)
    # the result of an internal rewrite is cleaned by httpd (base.clean_path); a redirect's is sent as written
    substitution = d.args[1] if {"R", "P"} & set(flags) else clean_url(d.args[1])
    rule = RRule(d.args[0], substitution, flags, state.pending, d.span, d, len(state.rules))
    for setting in flag_values(flags, "E"):
        record_env(ctx.options, setting, rule, ctx.directory is not None or state.per_dir is not None)
        server_env(ctx.server, setting, ctx.directory is None and state.per_dir is None)
    state.pending = []
    state.rules.append(rule)
    state.directives.append(d)
    return Disposition.EXACT   # the real disposition is settled when the context is compiled


def _cond_regex_refused(test: str, pattern: str) -> tuple[str, str] | None:
    """(pattern, PCRE's message) when a RewriteCond's CondPattern is a regular expression httpd cannot compile:
    not `expr`, a file test, a string or integer comparison."""
    if test.lower() == "expr":
        return None
    body = pattern[1:] if pattern.startswith("!") else pattern
    if cond_operator(body) and (body in ("-f", "-d", "-x", "-s", "-F", "-U", "-l", "-L", "-h")
                                or body[:1] in ("<", ">", "=") or re.match(r"-(lt|le|eq|ne|ge|gt)", body)):
        return None
    why = httpd_refuses(body)
    return (body, why) if why is not None else None


def rewrite_base(ctx: Context, d: Directive) -> Disposition:
    if ctx.directory is None and ctx.scope is None and ctx.options.get("htaccess_dir") is None:
        # mod_rewrite's own check: no per-directory path, no base (observed: httpd does not start)
        ctx.diags.add("A2N001", "RewriteBase outside <Directory>, <Location> or .htaccess: httpd refuses the "
                      "configuration (RewriteBase: only valid in per-directory config files)", d.span,
                      directive=d.name, hint="remove it, or move the rules into the <Directory> they are meant for")
        return Disposition.UNSUPPORTED
    if d.args:
        _state(ctx).base = d.args[0]
    return Disposition.EXACT


def rewrite_options(ctx: Context, d: Directive) -> Disposition:
    opts = {a.lower() for a in d.args}
    inherit = opts & {"inherit", "inheritbefore", "inheritdown", "inheritdownbefore"}
    if inherit and ctx.directory is None and ctx.scope is None and ctx.options.get("htaccess_dir") is None:
        # server context: a virtual host takes the main server's rules (after its own, or before them)
        state = _state(ctx)
        if inherit & {"inherit", "inheritbefore"} and ctx.in_vhost:
            state.inherit = "before" if "inheritbefore" in inherit else "after"
        if inherit & {"inheritdown", "inheritdownbefore"} and not ctx.in_vhost:
            state.inherit_down = "before" if "inheritdownbefore" in inherit else "after"
        if state.inherit or state.inherit_down:
            return Disposition.EXACT
    if inherit:
        ctx.diags.add("A2N802", f"RewriteOptions {' '.join(d.args)}: a directory's inherited rules are not copied "
                      "into this context; add them here by hand", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if opts & {"allowanyuri", "mergebase", "allownoslash", "ignorecontextinfo", "legacyprefixdocroot",
               "ignoreinherit", "longurloptimization"}:
        ctx.diags.add("A2N803", f"RewriteOptions {' '.join(d.args)}: an edge switch with no nginx counterpart",
                      d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


def rewrite_map(ctx: Context, d: Directive) -> Disposition:
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "RewriteMap needs a name and a type:source", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    name, source = d.args[0], d.args[1]
    kind, _, path = source.partition(":")
    kind = kind.lower().split("=", 1)[0]
    mapdef = RewriteMapDef(name, kind, source, d.span)
    ctx.settings.setdefault("rewrite_maps", {})[name] = mapdef
    if kind in ("txt", "rnd"):
        locate = ctx.options.get("locate")
        found = locate(path) if locate else None
        if found is None:
            ctx.diags.add("A2N831", f"RewriteMap {name}: the map file {path} was not found; httpd refuses to start "
                          "without it, and the translation's map is empty", d.span, directive=d.name,
                          hint="convert where the map file is present (or pass --server-root)")
            mapdef.entries = {}
            return Disposition.UNSUPPORTED
        try:
            mapdef.entries = read_txt_map(read_text(found, errors="surrogateescape"))
        except OSError as exc:
            ctx.diags.add("A2N831", f"RewriteMap {name}: the map file {path} cannot be read ({exc.strerror})",
                          d.span, directive=d.name)
            mapdef.entries = {}
            return Disposition.UNSUPPORTED
        unsafe = [k for k, v in mapdef.entries.items() if "$" in v or "$" in k or "{" in v]
        if unsafe:
            mapdef.problem = f"its entry {unsafe[0]!r} holds `$` or `{{`, which nginx map values read as variables"
        return Disposition.UNSUPPORTED if mapdef.problem else Disposition.EXACT
    if kind == "int":
        if path.lower() in ("tolower", "toupper", "escape", "unescape"):
            return Disposition.EXACT   # each use is judged where it stands
        mapdef.problem = f"int:{path} is not a function httpd provides"
        ctx.diags.add("A2N804", f"RewriteMap {name} {source}: {mapdef.problem}", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    mapdef.problem = f"{kind} maps ask a program or a database at request time"
    ctx.diags.add("A2N804", f"RewriteMap {name} {source}: {kind} maps are not translated; rules that use "
                  f"${{{name}:...}} are reported", d.span, directive=d.name,
                  hint="export a dbm map to a txt map (httxt2dbm's input) and point RewriteMap at it" if kind == "dbm"
                  else "replace the program or database lookup with an nginx map or an auth_request service")
    return Disposition.UNSUPPORTED


def _in_location(ctx: Context, d: Directive) -> Disposition:
    """A rule in a <Location> is left out; unless the section turns the engine off, the section is refused.
    Left out, a rule would let through what httpd refuses: one answering with an error status, one leading
    to a refused URL, and any rule at all where the Options in force allow neither FollowSymLinks nor
    SymLinksIfOwnerMatch (mod_rewrite's fixup answers 403 to every request there, AH00670)."""
    if d.key == "rewritecond":
        ctx.scope.settings.setdefault("rewrite_refused_pending", []).append(d)
    # (the RewriteCond lines before a rule are its conditions: _location_rule_tests)
    conds = ctx.scope.settings.pop("rewrite_refused_pending", []) if d.key == "rewriterule" else []
    if d.key == "rewriterule" and _state(ctx).engine is not False:
        if not ctx.scope.settings.get("rewrite_refused"):
            ctx.scope.settings["rewrite_refused"] = True
            refusal = ctx.emit("return", ["403"], d.span)
            refusal.comment = LOCATION_REFUSAL
            ctx.scope.settings["rewrite_refusal"] = refusal
        ctx.scope.settings.setdefault("rewrite_refused_rules", []).append(d)
        ctx.scope.settings.setdefault("rewrite_refused_conds", {})[id(d)] = conds
        why = "the rule refuses requests" if _refuses(d) else \
            "what it does there (an error, a refused target, or 403 without FollowSymLinks) is unknown"
        ctx.diags.add("A2N805", f"{d.name} inside <Location>: httpd applies it to the mapped file path, in a way "
                      f"the translation does not reproduce; {why}, so the translation refuses every request of "
                      "the section (403)", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.diags.add("A2N805", f"{d.name} inside <Location>: httpd applies it to the mapped file path, in a way "
                  "the translation does not reproduce; nothing was emitted", d.span, directive=d.name)
    return Disposition.UNSUPPORTED



def _refuses(d: Directive) -> bool:
    """Whether the RewriteRule answers with an error status ([F], [G], [R=4xx/5xx])."""
    flags = {_LONG.get(k, k): v for k, v in _flags(d.args[2] if len(d.args) > 2 else None).items()}
    status = flags.get("R", "")
    return "F" in flags or "G" in flags or (status.isdigit() and int(status) >= 400)


RULES = table(
    Rule("RewriteEngine", Disposition.EXACT, rewrite_engine),
    Rule("RewriteCond", Disposition.EXACT, rewrite_cond),
    Rule("RewriteRule", Disposition.EXACT, rewrite_rule),
    Rule("RewriteBase", Disposition.EXACT, rewrite_base),
    Rule("RewriteOptions", Disposition.EXACT, rewrite_options),
    Rule("RewriteMap", Disposition.EXACT, rewrite_map),
)


N_UNROLL = 16


def _not_translated(ctx: Context, rule: RRule, code: str, why: str, refused: bool = False) -> None:
    """Report a rule (and its conditions) as untranslated: an error, never a silent drop. REFUSED: the requests
    it applies to are refused in its place (`_refused_instead`)."""
    what = "the requests it applies to are refused (403) instead" if refused else "nothing was emitted for this rule"
    rule.settle(ctx, Disposition.UNSUPPORTED, ctx.diags.add(
        code, f"RewriteRule {rule.pattern} {rule.substitution}: {why}; {what}", rule.span,
        directive="RewriteRule"))


# Untranslated server-context rules whose result httpd would check against other access rules than nginx (or
# serve under other <Location> Header lines or FallbackResource): left out, the request would be served under
# the rules of its original URL alone.
_REFUSED_INSTEAD = {"A2N327", "A2N780", "A2N842", "A2N861", "A2N879", "A2N880"}
# Untranslated per-directory rules whose result httpd checks against the access rules of its own URL, maps
# through another entry (a Redirect, an Alias, a ProxyPass) or serves with another section's settings; and [P]
# rules whose proxying would pass access rules httpd applies to the original URL (left out, nginx would serve the
# URL's local file where httpd proxies).
_DIRECTORY_REFUSED_INSTEAD = {"A2N860", "A2N862", "A2N877", "A2N880"}


def _refused_instead(compiler: Compiler, rule: RRule, exc: Unsupported, guards=()) -> list[Stmt]:
    """A rule left out because its result crosses access rules (server context, or a per-directory [END]): the requests it applies to (its
    pattern, conditions and the guards of its chain) are refused (403), as an [F] rule of the same tests; httpd
    may refuse them (the rewritten URL's <Directory> rules, 401 or 403) where nginx would serve the original
    URL. Nothing where the tests themselves cannot be compiled (the error says so), except for an [F] rule
    (`_forbidden_anyway`)."""
    if "F" in rule.flags and rule.conds:
        return _forbidden_anyway(compiler, rule, guards)
    if exc.code not in (_REFUSED_INSTEAD if compiler.per_dir is None else _DIRECTORY_REFUSED_INSTEAD):
        return []
    flags = {k: v for k, v in rule.flags.items() if k == "NC"}
    flags["F"] = ""
    copy = RRule(rule.pattern, "-", flags, list(rule.conds), rule.span, rule.directive, rule.index)
    sections = compiler.result_sections(rule)
    # a server-context result ending with a slash is a directory (or no file) mapped for the request's own path,
    # which httpd's handler never serves as the result's file: mod_dir answers it (carry_refusal_headers)
    path = rule.substitution.split("?", 1)[0]
    directory = compiler.per_dir is None and path.startswith("/") and path.endswith("/") \
        and not {"R", "P", "PT"} & set(rule.flags)
    try:
        stmts = compiler.rule_statements(copy, list(guards))
    except Unsupported:
        return []
    rule_result = _rule_result(compiler, rule, exc)

    def mark(block: list[Stmt]) -> None:
        for st in block:
            if st.name == "return" and st.args == ["403"] and st.comment is None:
                st.comment = REFUSED_RULE       # its answer carries the headers httpd's may (carry_refusal_headers)
                compiler.refusal_sections[id(st)] = (sections, directory)
                st.result = getattr(exc, "result", None)
                st.rule_result = rule_result
            if st.block:
                mark(st.block)
    mark(stmts)
    return stmts


def _forbidden_anyway(compiler: Compiler, rule: RRule, guards=()) -> list[Stmt]:
    """An [F] rule left out (a condition nginx cannot test, such as an ap_expr the translation does not read):
    the requests its pattern (and the guards of its chain) applies to are refused (403) whatever its conditions
    say, since httpd refuses those of them the conditions hold for; left out, nginx would serve them all."""
    copy = RRule(rule.pattern, "-", {k: v for k, v in rule.flags.items() if k in ("NC", "F")}, [], rule.span,
                 rule.directive, rule.index)
    try:
        return compiler.rule_statements(copy, list(guards))
    except Unsupported:
        return []


def _rule_result(compiler: Compiler, rule: RRule, exc: Unsupported) -> tuple[str, str] | None:
    """The regex of a per-directory RULE left out (EXC: its [END] result crosses other sections) and the URL
    path of its result (Unsupported.target), for Stmt.rule_result: where the path is literal or reads only the
    regex's captures ($1..$9), and the regex is not negated."""
    target = getattr(exc, "target", None)
    pattern, negate = compiler.rule_regex(rule)
    path = target.split("?", 1)[0] if target else ""
    if negate or not re.fullmatch(r"/(?:[^$\s'\"{};]|\$\d)*", path):
        return None
    return pattern, path


def _unrolled(ctx: Context, compiler: Compiler, rule: RRule) -> tuple[list[Stmt], bool]:
    """The first rule of a context with [N]: restarting the ruleset from the top re-applies this rule until
    it no longer matches, so it is written out that many times (at most N_UNROLL); within httpd's bound a
    further match answers 500 as httpd does."""
    limit = rule.flags.get("N", "")
    # observed on httpd 2.4: with N=k the rule may apply k-2 times, the next match is a 500
    rounds = max(int(limit) - 2, 0) if limit.isdigit() and int(limit) > 0 else 32000 - 2
    times = min(rounds, N_UNROLL)
    if "L" in rule.flags or "END" in rule.flags or "R" in rule.flags or "P" in rule.flags:
        raise Unsupported("A2N813", "[N] together with [L], [END], [R] or [P] is not translated")
    plain = RRule(rule.pattern, rule.substitution, {k: v for k, v in rule.flags.items() if k != "N"}, rule.conds,
                  rule.span, rule.directive, rule.index)
    out: list[Stmt] = []
    for _ in range(times):
        out.extend(compiler.rule_statements(plain))
    bounded = rounds <= N_UNROLL
    if bounded:
        # httpd gives up with a 500 once the bound is reached and the rule still matches
        fail = RRule(rule.pattern, "-", {"R": "500"}, rule.conds, rule.span, rule.directive, rule.index)
        out.extend(compiler.rule_statements(fail))
    else:
        ctx.diags.add("A2N833", f"RewriteRule {rule.pattern} {rule.substitution} [N]: repeated {times} times; "
                      f"httpd repeats it until it no longer matches (up to {rounds} times)", rule.span,
                      directive="RewriteRule")
    return out, bounded


def _after_same_next_rule(previous: RRule | None, rule: RRule) -> bool:
    """`rule` directly follows an unconditional [N] rule with its pattern: when the ruleset reaches it, that
    pattern has just failed on the same URI (or httpd stopped at the [N] bound with a 500)."""
    if previous is None or "N" not in previous.flags or previous.conds or rule.conds:
        return False
    if previous.pattern != rule.pattern or previous.pattern.startswith("!"):
        return False
    if ("NC" in previous.flags) != ("NC" in rule.flags):
        return False
    return not any(f in previous.flags for f in ("L", "END", "R", "P", "F", "G", "S", "C", "E", "CO", "T", "H"))


class _Flow:
    """[C] and [S] across a ruleset: which guards a rule runs under and which marks it sets.

    A rule after a [C] rule runs only if that rule matched (`$a2n_chainN = 1`); the N rules after an [S=N]
    rule run only if it did not (`$a2n_skipN = ""`). A rule whose head could not be translated is not
    translated either: it would run where httpd skips it.

    httpd (apply_rewrite_list) skips the rest of a chain only after a [C] rule it ran failed; [S=N] skips N
    single rules, chained or not. A chained rule an [S] skipped therefore lets the next rule run on its
    own: its mark starts at 1 where the [S] applied (_skipped_link)."""

    def __init__(self) -> None:
        self.number = 0
        self.chain: str | None = None          # guard from the previous rule's [C]
        self.chain_broken: str | None = None   # why the chain cannot be followed
        self.chain_never = False               # the chain's head can never fire
        self.skips: list[list] = []            # [remaining rules, guard or None when the [S] rule failed]
        self.pending_init: list[Stmt] = []

    def enter(self, rule: RRule | None, original: RRule) -> tuple[list[str], list[str], str | None, bool]:
        """(guards, marks, why it cannot be translated or None, whether it can never fire)."""
        guards = [g for _, g in self.skips if g]
        blocked = next(("it is skipped by an [S] rule that is not translated" for _, g in self.skips
                        if g is None), None)
        self.skips = [[n - 1, g] for n, g in self.skips if n - 1 > 0]
        if self.chain is not None:
            guards.append(self.chain)
        if self.chain_broken is not None:
            blocked = blocked or self.chain_broken
        never = self.chain_never
        self.chain, self.chain_broken, self.chain_never = None, None, False
        skipping = [g.split()[0] for g in guards if g.startswith("$a2n_skip")]
        self.pending_init = []
        if rule is None or never:
            # A rule that can never fire never skips, and the rules chained to it never run either (unless
            # an [S] skipped it).
            if "C" in original.flags and skipping:
                self.chain = self._skipped_link(skipping, original)
            else:
                self.chain_never = "C" in original.flags
            return guards, [], None, True
        marks: list[str] = []
        if "C" in rule.flags:
            self.chain = self._skipped_link(skipping, rule)
            marks.append(self.chain.split()[0])
        skip = rule.flags.get("S")
        if skip is not None:
            if not skip.isdigit() or int(skip) < 1:
                blocked = blocked or f"[S={skip}] is not a positive number of rules"
            else:
                self.number += 1
                mark = f"$a2n_skip{self.number}"
                marks.append(mark)
                self.pending_init.append(Stmt("set", [mark, ""], rule.span))
                self.skips.append([int(skip), f'{mark} = ""'])
        if blocked is not None and "C" in rule.flags:
            self.chain, self.chain_broken = None, "it is chained ([C]) to a rule that is not translated"
        return guards, marks, blocked, False

    def _skipped_link(self, skipping: list[str], rule: RRule) -> str:
        """A new chain mark for RULE, 1 from the start where one of the SKIPPING marks says an [S] skipped it;
        the guard of the rule after it."""
        self.number += 1
        mark = f"$a2n_chain{self.number}"
        self.pending_init.append(Stmt("set", [mark, ""], rule.span))
        for skip in skipping:
            self.pending_init.append(Stmt("if", [f"({skip} = 1)"], rule.span, block=[
                Stmt("set", [mark, "1"], rule.span, comment="skipped by [S]: the next rule runs on its own")]))
        return f"{mark} = 1"

    def emitted(self, stmts: list[Stmt]) -> None:
        stmts[:0], self.pending_init = self.pending_init, []

    def failed(self, rule: RRule) -> None:
        if "C" in rule.flags:
            self.chain, self.chain_broken = None, "it is chained ([C]) to a rule that is not translated"
        if "S" in rule.flags and self.skips and self.skips[-1][1] and self.skips[-1][1].startswith(
                f"$a2n_skip{self.number} "):
            self.skips[-1][1] = None


# ----------------------------------------------------------------- per server

LITERAL_MAP_THRESHOLD = 8


def finish_server(ctx: Context, server: Server) -> None:
    own = list(server.settings.get("directory_rewrites", {}).values())
    inherited = [] if server is ctx.main else list(ctx.main.settings.get("directory_rewrites", {}).values())
    engines = [(h.settings["rewrite"].engine, h.settings["rewrite"].engine_span)
               for h in ([ctx.main] if server is ctx.main else [ctx.main, server]) if "rewrite" in h.settings]
    kept, replaced = rewrite_merge.effective(inherited + own, engines)
    for state, later in replaced:
        _replaced(ctx, state, later)
    # the per-directory contexts whose rules run, each under its engine as merged (rewrite_dirslash reads them)
    server.settings["rewrite_directory_states"] = [state for _, state in kept]
    # the URL prefixes of every per-directory ruleset the server runs: a rule whose result nginx sends through
    # location selection again (Compiler.end_flag) must not land in one of them
    server.settings["rewrite_prefixes"] = [
        prefix.rstrip("/") + "/" for prefix in (_directory_url(ctx, server, state.directory or "")
                                                for _, state in kept if state.rules) if prefix is not None]
    server_state = server.settings.get("rewrite")
    main_state = ctx.main.settings.get("rewrite") if server is not ctx.main else None
    if main_state is not None:
        server_state = _merged_with_main(server_state, main_state)
    # a server-context [END] that applies keeps every per-directory rule of the request from running
    server.settings["rewrite_end_mark"] = server_state is not None and server_state.engine is not False and \
        any(ends_rewriting(r) for r in server_state.rules) and any(state.rules for _, state in kept)
    # the server's rules, which httpd runs again on a per-directory result (its internal redirect)
    # (a .htaccess read on its own, --htaccess-dir, holds per-directory rules in the server's state)
    server.settings["rewrite_server_rules"] = list(server_state.rules) if server_state is not None and \
        server_state.engine is not False and server_state.per_dir is None else []
    for original, state in kept:
        prefix = _directory_url(ctx, server, state.directory or "")
        if prefix is None:
            root_url = _directory_url(ctx, server, state.directory or "", routes=False)
            if root_url is not None:
                state.shadowed = original.shadowed = root_url
            continue
        # (STATE is a copy of ORIGINAL where the engine it runs under comes from a parent directory or the
        # server, which is decided per server)
        state.mapped = original.mapped = True
        state.per_dir = original.per_dir = prefix
        # a directory with a mod_rewrite directive of its own: the layout does not carry a parent's rules there
        server.settings.setdefault("rewrite_directories", set()).add(prefix.rstrip("/") + "/")
        if _symlinks_refused(ctx, server, state):
            continue
        _finish_state(ctx, server, state)
        _reopened_refusal_first(server)
    for _, state in kept:
        _refuse_aliased(ctx, server, state)
    if server_state is not None:
        _finish_state(ctx, server, server_state)
    for scope in server.scopes:
        _location_refusal_headers(ctx, server, scope)
        _location_rule_tests(ctx, server, scope)


class _LocationRule:
    """A RewriteRule of a <Location> as refused_directory_headers reads it: its substitution and flags."""

    def __init__(self, d: Directive, relative_any: bool):
        self.substitution = d.args[1] if len(d.args) > 1 else "-"
        self.flags = _normalise(_flags(d.args[2] if len(d.args) > 2 else None))
        if relative_any and self.substitution != "-" and not self.substitution.startswith("/") and \
                not re.match(r"[a-z][a-z0-9+.-]*://", self.substitution, re.I):
            self.substitution = "/"     # relative to the mapped file's directory: any URL of the server


def _location_refusal_headers(ctx: Context, server: Server, scope) -> None:
    """The 403 standing for a <Location>'s rewrite rules (A2N805) carries the headers of the sections those
    rules may rewrite a request to: httpd's per-directory rewrite ends in an internal redirect whose answer
    carries their Header lines (a <Directory>'s Content-Security-Policy on `GET /api/a.txt` rewritten to
    /img/), as for a <Directory>'s rules left out (refused_directory_headers)."""
    directives = scope.settings.get("rewrite_refused_rules")
    if not directives or scope.settings.get("rewrite_carried"):
        return
    scope.settings["rewrite_carried"] = True
    rules = [_LocationRule(d, True) for d in directives if len(d.args) >= 2]
    prefix = "/" if scope.regex else scope.path.rstrip("/") + "/"
    carried = refused_directory_headers(ctx, server, rules, prefix)
    scope.statements.extend(Stmt(h.name, list(h.args), h.span, comment=h.comment) for h in carried)


class _LocationConditions(Compiler):
    """Compiles the tests of a <Location>'s rules (_location_rule_tests): httpd runs them per directory, where
    %{REQUEST_FILENAME} is the mapped file path and %{REQUEST_URI} the URL of the request (the index file's
    where mod_dir looks one up), which REWRITE_FILE and REWRITE_URI hold."""

    def variable(self, name: str, rule=None) -> str:
        upper = name.upper()
        if upper in ("REQUEST_FILENAME", "SCRIPT_FILENAME"):
            return REWRITE_FILE
        if upper == "REQUEST_URI":
            return REWRITE_URI
        if upper.startswith("ENV:") or upper in ("DOCUMENT_ROOT", "REMOTE_USER"):
            # (an [E=] of the section's own rules, an Alias's root, a user no login of the section asked for)
            raise Unsupported("A2N863", f"%{{{name}}}")
        return super().variable(name, rule)


def _location_rule_tests(ctx: Context, server: Server, scope) -> None:
    """The tests saying where the rules of a <Location> refused for them (A2N805) apply, on its `return 403`
    (Stmt.rule_tests). httpd runs them in its fixup, after the access checks, against the mapped file path
    (mod_rewrite's hook_fixup and apply_rewrite_rule strip the section's path from it where it starts with
    it: `<Location />` matches `srv/www/a.txt`), and where none applies its handler serves the file the URL
    names, or mod_dir the directory's index file (whose path the rules but [R] and [NS] ones are run against
    again, in mod_dir's subrequest: apply_rewrite_list): a success, carrying the onsuccess headers. Where one
    applies, its redirect, [F] or [G] is an error, carrying the `Header always` lines alone, and its [P] the
    backend's answer. The refusal sends the onsuccess line of a
    header both tables name where httpd serves (emit.inherit._served_tests). Where the tests cannot say which
    requests a rule applies to (a rewrite to a URL, a chain, a condition nginx cannot test) and such a header
    is sent, the refusal's headers cannot follow httpd's (A2N863)."""
    refusal = scope.settings.get("rewrite_refusal")
    directives = scope.settings.get("rewrite_refused_rules")
    if refusal is None or not directives or scope.settings.get("rewrite_tested"):
        return
    scope.settings["rewrite_tested"] = True
    why = _rule_tests(ctx, server, scope, refusal, directives)
    if why is None:
        return
    if not (server.settings.get("header_tables_said") or ctx.main.settings.get("header_tables_said")):
        return      # no header both tables name: the refusal's 403 sends what httpd's errors send
    ctx.diags.add("A2N863", f"RewriteRule inside <Location {scope.path}>: {why}, so nginx cannot tell which "
                  "requests httpd serves there (its success carries the onsuccess Header lines too) from those "
                  "the rule answers (an error carries the `Header always` lines alone); the translation's 403 "
                  "sends the always line alone where both name a header"
                  + (" and the rule applies" if refusal.rule_tests else ""), directives[0].span,
                  directive="RewriteRule")


def _rule_tests(ctx: Context, server: Server, scope, refusal: Stmt, directives: list) -> str | None:
    """Sets REFUSAL's rule_tests (see _location_rule_tests); or says why it cannot."""
    from .rewrite_handler import directory_options, option_directories
    if scope.regex:
        return "httpd matches the rules of a <LocationMatch> against the file path with its regex's own prefix"
    prefix = scope.path.rstrip("/") + "/"
    # the directories httpd maps the section's URLs to: under the DocumentRoot, or an Alias
    places = []
    for route in routes_in_force(server, ctx.main):
        if route.kind in ("alias", "proxy", "redirect") and (route.regex or _overlaps(route.path, scope.path)):
            if route.kind != "alias" or route.regex:
                return "an AliasMatch, a ProxyPass or a Redirect maps URLs of the section"
            places.append(route.target)
    if server.root and not any(_starts_path(scope.path, r.path) for r in server.routes if r.kind == "alias"):
        places.append(server.root.rstrip("/") + (scope.path.rstrip("/") or ""))
    if not places:
        return "no directory is known to hold the section's files"
    stripped = {p.rstrip("/") + "/" == prefix or p.startswith(prefix) for p in places}
    if len(stripped) > 1:
        return "httpd strips the section's path from some of its file paths and not from others"
    # without FollowSymLinks (or SymLinksIfOwnerMatch) httpd refuses every request there (AH00670): its 403
    # carries the always lines alone, as the translation's does
    links = set()
    for place in places:
        for directory in [place] + option_directories(ctx, server, place):
            options = directory_options(ctx, server, directory)
            if options is None:
                return "the Options in force there (FollowSymLinks, without which httpd refuses) are not known"
            links.add(bool(options & {"followsymlinks", "symlinksifownermatch"}))
    if links == {False}:
        return None
    if len(links) > 1:
        return "httpd refuses some of its directories for their Options (without FollowSymLinks) and not others"
    compiler = _LocationConditions(ctx, server, RewriteContext(per_dir=prefix))
    rules = []
    for d in directives:
        if len(d.args) < 2:
            return "a RewriteRule lacks its substitution"
        conds = []
        for c in scope.settings.get("rewrite_refused_conds", {}).get(id(d), []):
            if len(c.args) < 2:
                return f"RewriteCond {' '.join(c.args[:2])} does not test one variable"
            cflags = {_LONG.get(f, f) for f in _flags(c.args[2] if len(c.args) > 2 else None)}
            conds.append(Cond(c.args[0], c.args[1], cflags, c.span, c))
        flags = _normalise(_flags(d.args[2] if len(d.args) > 2 else None))
        rules.append(RRule(d.args[0], d.args[1], flags, conds, d.span, d))
    unsure: list[str] = []
    tests = _compiled_rule_tests(compiler, rules, REWRITE_FILE, next(iter(stripped)), unsure)
    if isinstance(tests, str):
        return tests
    refusal.rule_tests = tests
    return unsure[0] if unsure else None


def _compiled_rule_tests(compiler: Compiler, rules: list[RRule], subject: str, stripped: bool,
                         unsure: list[str] | None = None) -> tuple | str:
    """The tests of RULES (Stmt.rule_tests), their patterns matched against SUBJECT (with the per-directory
    prefix of COMPILER where httpd strips it: STRIPPED); or why nginx cannot tell where they apply. With
    UNSURE (a list), a rule that rewrites the request and ends the rules ([L], [END], or the last one) is
    tested too, as an error, and why its answer is not known is added to UNSURE: httpd's answer there is
    its result's, which may be a success, but elsewhere it serves the file the URL names (a <Location /files>
    rule `^([^/]+)/?$` never matched the file path `/srv/www/files/a.txt`, whose 200 carried both header
    tables, where the refusal had sent the always line alone on every request)."""
    tests = []
    for i, rule in enumerate(rules):
        flags, label = rule.flags, rule.directive.args[2][1:-1] if len(rule.directive.args) > 2 else ""
        if set(flags) & {"C", "N", "S"}:
            return f"RewriteRule {rule.pattern} [{label}] chains, repeats or skips rules"
        status = flags.get("R", "")
        if "F" in flags or "G" in flags or "R" in flags:
            value = ""
            if "R" in flags and not ("L" in flags or "END" in flags) and i + 1 < len(rules) and \
                    not (status.isdigit() and int(status) >= 400):
                return f"RewriteRule {rule.pattern} redirects without [L], where the rules after it still run"
        elif "P" in flags:
            value = "1"     # the backend's answer, success or not: its headers as on a proxied URL's refusal
        elif rule.substitution == "-" and not ({"L", "END", "T", "H", "PT"} & set(flags)):
            continue        # the rule changes nothing the answer is made of: httpd goes on as if it did not match
        else:
            why = f"RewriteRule {rule.pattern} {rule.substitution} rewrites the request, whose answer is its result's"
            if unsure is None or not ({"L", "END"} & set(flags) or i + 1 == len(rules)):
                return why
            unsure.append(why)
            value = ""
        pattern, negate = rule.pattern, False
        if pattern.startswith("!"):
            pattern, negate = pattern[1:], True
        if stripped:
            pattern, negate = compiler.rule_regex(RRule(rule.pattern, rule.substitution, flags, [], rule.span,
                                                        rule.directive))
        elif "NC" in flags:
            pattern = "(?i)" + pattern
        conditions = [f"{subject} {'!~' if negate else '~'} {_quote_regex(pattern)}"]
        for c in rule.conds:
            if c.refused or not re.fullmatch(r"%\{[^}]+\}", c.test):
                return f"RewriteCond {c.test} {c.pattern} does not test one variable"
            if "OR" in c.flags:
                return f"RewriteCond {c.test} {c.pattern} is one of conditions joined with [OR]"
            if c.pattern.lstrip("!") == "-U":
                return f"RewriteCond {c.test} {c.pattern} looks the URL up"
            try:
                test, _ = compiler.condition(c, None, "a2n_rwc", {}, {})
            except Unsupported as e:
                return f"RewriteCond {c.test} cannot be tested in nginx ({e.args[-1] if e.args else e})"
            if compiler.tests_built or compiler.lookups:
                return f"RewriteCond {c.test} cannot be tested in nginx"
            # (%{REQUEST_METHOD}, DIR_METHOD: the tests set it for the request's file and for mod_dir's index
            # file, GET in its subrequest, as _dir_method_pass does where the rules run: emit.inherit._rule_tests)
            conditions.append(test)
        # (mod_dir looks the index file up with a subrequest, on which httpd skips [R] and [NS] rules)
        tests.append((value, tuple(conditions), not ({"R", "NS"} & set(flags))))
    return tuple(tests)


def _overlaps(path: str, other: str) -> bool:
    """Whether URL prefixes PATH and OTHER have a URL in common."""
    return _starts_path(path, other) or _starts_path(other, path)


def _starts_path(url: str, prefix: str) -> bool:
    prefix = prefix.rstrip("/")
    return url == prefix or url.startswith(prefix + "/") or prefix == ""


def _replaced(ctx: Context, state: RewriteContext, later: RewriteContext) -> None:
    """Rules of a <Directory> whose path a later <Directory> section with mod_rewrite directives names again:
    httpd merges that section's rules in place of these (config_perdir_merge, without RewriteOptions
    Inherit), so they never run; nothing is emitted for them."""
    state.mapped = True
    where = f" ({later.directives[0].span.file_line})" \
        if later.directives and later.directives[0].span else ""
    said = ctx.options.setdefault("rewrite_replaced", set())
    for rule in state.rules:
        if id(rule) in said:
            continue
        said.add(id(rule))
        diag = ctx.diags.add("A2N846", f"RewriteRule {rule.pattern}: a later <Directory {state.directory}> "
                             f"section{where} has mod_rewrite directives of its own, whose rules httpd merges in "
                             "place of these (without RewriteOptions Inherit): httpd never applies this rule, and "
                             "the translation leaves it out", rule.span, directive="RewriteRule")
        rule.settle(ctx, Disposition.NOT_APPLICABLE, diag)


def _refuse_aliased(ctx: Context, server: Server, state: RewriteContext) -> None:
    """Per-directory rules reached through an Alias: httpd runs them for the aliased URLs too, matching what
    follows the directory (without RewriteBase a relative result is not a URL of the alias), while the
    translation places them under the document root's URL alone. The aliased URLs of the directory are
    refused (403) rather than served without the rules (a rewrite there could loop to httpd's 500, refuse,
    redirect or proxy)."""
    if not state.rules or state.engine is False:
        return
    directory = (state.directory or "").rstrip("/")
    routes = routes_in_force(server, ctx.main)
    for route in routes:
        if route.kind == "alias" and route.regex and not route.params.get("cgi"):
            _refuse_alias_match(ctx, state, route)
            continue
        if route.kind != "alias" or route.regex or not route.target.startswith("/"):
            continue
        target = route.target.rstrip("/")
        url = route.path.rstrip("/")
        exact = None
        if directory and (directory == target or directory.startswith(target + "/")):
            prefix = url + directory[len(target):] + "/"
        elif target.startswith(directory + "/") or not directory:
            prefix = url + "/"
            # the Alias's own URL maps to its target, a file below the directory (or the root's own "/"):
            # hook_fixup runs the rules there as well, before mod_dir's redirect of a directory
            exact = url if url and not route.path.endswith("/") else None
        else:
            continue
        span = state.rules[0].span
        # the directory's own name without its slash is left to mod_dir's redirect, which mod_rewrite declines
        # to touch (hook_fixup: a file name that is the context's directory without its slash; observed: httpd
        # answers 301 there)
        refused_at = [_refuse_prefix(server, prefix, span, ALIAS_REFUSAL, ("^~",))]
        if exact is not None:
            refused_at.append(_refuse_prefix(server, exact, span, ALIAS_REFUSAL, ("=",)))
        # the 403 carries the headers of the sections the rules may rewrite to, which httpd's answer (the
        # internal redirect to their result) may, here and where the layout repeats it below (`refusal_headers`)
        carried = refused_directory_headers(ctx, server, state.rules, prefix)
        for loc, refusal in refused_at:
            loc.statements.extend(Stmt(h.name, list(h.args), h.span, comment=h.comment, resets=h.resets,
                                       conditional=h.conditional, late=h.late) for h in carried)
            if carried:
                server.settings.setdefault("refusal_headers", []).append((refusal, carried))
        if exact is None:
            _follow_aliased_results(ctx, server, state.rules, prefix, refused_at[0][1])
        refused = prefix if exact is None else f"{exact} and {prefix}"
        ctx.diags.add("A2N785", f"RewriteRule in <Directory {state.directory}>: {route.params.get('directive', 'Alias')} "
                      f"{route.path} maps URLs into the directory, where httpd runs its {len(state.rules)} rule(s) "
                      f"too; the translation places them under the document root only, so it refuses {refused} (403)",
                      span, directive="RewriteRule", related=[route.span], urls=[(prefix, False)])


def _follow_aliased_results(ctx: Context, server: Server, rules: list[RRule], prefix: str, refusal: Stmt) -> None:
    """The results of a directory's per-directory RULES for the URLs of an Alias onto the directory itself (or
    a directory above it: PREFIX, the Alias's URL of the directory), recorded for the layout as a refused
    directory's are (refused_rule_results), so that the Alias's refusal (REFUSAL) sets the `SetEnvIf
    Request_URI` variables its Header lines test again from them. httpd runs the rules on the path below the
    directory, as for the document root's URL (`sub/a.txt` for GET /media/sub/a.txt with `Alias /media
    /srv/www/docs` and rules in <Directory /srv/www/docs>), and its internal redirect to a rule's result (a
    URL path, the same through either URL) runs the server's SetEnvIf lines again on it: `Header set
    X-Frame-Options DENY env=!txt` was sent on GET /media/sub/a.txt rewritten to /app/index.html, where
    nginx's refusal tested the value read on the request's own path and lost the header. (Not for an Alias
    onto a directory below the rules' own: the rules see a path its URL does not start with.)"""
    server.settings.setdefault("refused_rule_results", []).append(
        (refusal, prefix, _directory_slash_on(ctx, server), *refused_rule_results(rules, prefix)))


def _refuse_alias_match(ctx: Context, state: RewriteContext, route) -> None:
    """An AliasMatch whose target may lie in (or below, or above) the directory of per-directory rules: httpd
    runs the directory's rules for the files it maps there (a rewrite to a URL is an internal redirect, which
    may come back to the same rules and end in its redirect limit, 500), while the translation places them
    under the document root's URL alone. Its regex location is refused (403) rather than served without them."""
    if route.params.get("refused") or not route.target.startswith("/"):
        return
    directory = (state.directory or "").rstrip("/")
    first = route.target.find("$")
    fixed = route.target if first < 0 else route.target[:route.target.rfind("/", 0, first) + 1]
    static = fixed.rstrip("/")
    if not (directory == static or static.startswith(directory + "/") or directory.startswith(static + "/")
            or not directory or not static):
        return
    route.params["refused"] = ALIAS_REFUSAL
    # said at the AliasMatch, whose URLs it refuses: the rules may be a .htaccess file's, which speaks of the
    # URLs under its own directory (and a plain Alias's onto it) only, where an AliasMatch's are not known
    ctx.diags.add("A2N785", f"RewriteRule in <Directory {state.directory}>: AliasMatch {route.path} maps URLs into "
                  f"the directory, where httpd runs its {len(state.rules)} rule(s) too; the translation places them "
                  "under the document root only, so it refuses every URL of the AliasMatch (403)",
                  route.span or state.rules[0].span, directive="RewriteRule",
                  related=[state.rules[0].span] if route.span else [], urls=[(route.path, True)])


def _refuse_prefix(server: Server, prefix: str, span, comment: str,
                   modifiers: tuple[str, ...]) -> tuple[Location, Stmt]:
    """A `return 403` (COMMENT saying why) first in the server's prefix location of PREFIX (one of MODIFIERS,
    made `^~` if there is none, exact where MODIFIERS are `=` alone), kept as one of its per-directory rules.
    Returns the location and the refusal."""
    loc = next((l for l in server.locations if l.path == prefix and l.modifier in modifiers), None)
    if loc is None:
        modifier = "=" if modifiers == ("=",) else "^~" if prefix != "/" else ""
        loc = Location(modifier, prefix, [], span)
        server.locations.append(loc)
    refusal = Stmt("return", ["403"], span, comment=comment)
    loc.statements.insert(0, refusal)
    loc.directory_rules.append(refusal)
    return loc, refusal


def _symlinks_refused(ctx: Context, server: Server, state: RewriteContext) -> bool:
    """httpd answers 403 for every request whose per-directory RewriteEngine is on while the directory's Options
    allow neither FollowSymLinks nor SymLinksIfOwnerMatch, rules or not (mod_rewrite's hook_fixup, AH00670; it runs
    before mod_dir's fixup and the handler). The regions (the directory, or a <Directory> below it whose Options
    take both away) answer 403 in nginx too; where the directory itself is refused, its rules are moot, but for
    the sections merged later that bring FollowSymLinks back: <Directory> sections below it and <Location>
    ones (_reopened), <Files> (_reopening_files) and <LocationMatch> ones (_reopening_matches). Returns whether
    the whole directory is refused."""
    from .rewrite_handler import directory_options, option_directories
    if not state.engine or state.directory is None:
        return False
    span = state.engine_span or (state.rules[0].span if state.rules else None)

    covering = _reopening_locations(ctx, server)

    def refused(directory: str) -> bool:
        # (a <Location> over the directory's URL applies the modifiers carried from above again: _reapplied)
        url = _directory_url(ctx, server, directory)
        if url is not None and any(_location_covers(path, url) for path in covering):
            return not _reapplied(ctx, server, directory)
        options = directory_options(ctx, server, directory)
        return options is not None and not options & _SYMLINK_OPTIONS

    def refuse(prefix: str, comment: str = SYMLINKS_REFUSAL, but: str = "") -> tuple[Location, Stmt]:
        loc, refusal = _refuse_prefix(server, prefix, span, comment, ("", "^~"))
        ctx.diags.add("A2N839", f"RewriteEngine On in <Directory {state.directory}> while Options allow neither "
                      f"FollowSymLinks nor SymLinksIfOwnerMatch for {prefix}{but}: httpd answers 403 to every request "
                      "there (AH00670), and so does the translation", span, directive="RewriteEngine",
                      hint="add Options +SymLinksIfOwnerMatch (or +FollowSymLinks) to the directory if the rules are "
                      "meant to run")
        return loc, refusal

    directory = state.directory.rstrip("/")
    own = {(s.directory or "").rstrip("/") for h in (server, ctx.main)
           for s in h.settings.get("directory_rewrites", {}).values()}
    whole = refused(directory)
    unplaced = [] if whole else _symlinks_taken_unplaced(ctx, server, directory)
    reopened = _reopened(ctx, server, directory, own, refused) if whole else []
    files = _reopening_files(ctx, server, directory) if whole else []
    matches = _reopening_matches(ctx, server, directory) if whole else []
    if reopened or files or matches:
        # the rules run in the sections merged later that bring FollowSymLinks back: translated, the
        # directory's refusal kept out of the locations there (layout._carry_directory_rules) and out of the
        # file sections' locations but for other names (layout._reopened_file_rules)
        where = [f"the URLs under {', '.join(reopened)}"] if reopened else []
        where += [f"the files named like <Files {', '.join(p for p, _, _ in files)}>"] if files else []
        where += [f"the URLs matching <LocationMatch {', '.join(matches)}>"] if matches else []
        but = f" but for {' and '.join(where)} (whose sections bring FollowSymLinks back)"
        loc, refusal = refuse(state.per_dir.rstrip("/") + "/", but=but)
        if matches:
            refusal = _unless_matching(loc, refusal, matches)
        server.settings.setdefault("symlinks_reopened", []).append((refusal, reopened))
        server.settings.setdefault("symlinks_reopened_files", []).append(
            (refusal, [(regex, nocase) for _, regex, nocase in files], matches))
        server.settings.setdefault("symlinks_reopened_at", []).append((loc, refusal))
    elif whole or unplaced or _location_options_refused(ctx, server, state, directory, refuse):
        if unplaced:
            _refuse_unplaced(ctx, server, state, span, unplaced)
        else:
            refuse(state.per_dir.rstrip("/") + "/")
        for rule in state.rules:
            ctx.diags.add("A2N818", f"RewriteRule {rule.pattern}: httpd refuses the directory before its rules run "
                          "(FollowSymLinks is off" + (", A2N844" if unplaced else "") + "), so the translation "
                          "leaves the rule out", rule.span, directive="RewriteRule")
        for directive in state.directives:
            ctx.redispose(directive, Disposition.NOT_APPLICABLE)
        return True
    for below in option_directories(ctx, server, directory):
        if below not in own and refused(below) and (not whole or _beneath(ctx, server, below, reopened)):
            prefix = _directory_url(ctx, server, below)
            if prefix is not None:
                refuse(prefix, SYMLINKS_REFUSAL_BELOW)
    for pattern, regex, nocase, at in [] if whole else _symlinks_taken_files(ctx, server, directory):
        prefix = _directory_url(ctx, server, at)
        if prefix is not None:
            loc, refusal = refuse(prefix.rstrip("/") + "/", but=f" in the files named like <Files {pattern}>")
            _only_matching(server, loc, refusal, regex, nocase)
    return False


def _symlinks_taken_files(ctx: Context, server: Server, directory: str) -> list[tuple[str, str, bool, str]]:
    """The <Files>/<FilesMatch> sections whose Options, merged after the directory walk over those in force in
    DIRECTORY (or the directory below it that holds the section), allow neither FollowSymLinks nor
    SymLinksIfOwnerMatch: httpd's rewrite fixup refuses the files they match (AH00670; observed: `<Files
    "*.txt"> Options None` at server level answered 403 for /data/a.txt, and the rules of <Directory
    /srv/www/data> ran for /data/old). Each as its pattern, its URL regular expression, whether it ignores case
    and the directory whose URLs it refuses."""
    from .access import _merge_options
    from .rewrite_handler import directory_options
    holders = [server] if server is ctx.main else [ctx.main, server]
    out = []
    for scope in (s for h in holders for s in h.settings.get("files", [])):
        parent, words = scope.parent, scope.settings.get("section_options")
        at = directory if parent is None else (parent.fs_path or "").rstrip("/")
        if scope.kind != "files" or not scope.files_regex or not words or parent is not None and \
                (parent.kind != "directory" or parent.regex or not _related(directory, at)):
            continue
        at = max(directory, at, key=len)
        options = directory_options(ctx, server, at)
        if options is not None and not _merge_options(options, words) & _SYMLINK_OPTIONS:
            out.append((scope.path, scope.files_regex, scope.nocase, at))
    return out


def _only_matching(server: Server, loc: Location, refusal: Stmt, regex: str, nocase: bool) -> None:
    """The REFUSAL in LOC made to refuse only the URLs whose name a <Files> section's REGEX matches, ahead of
    the directory's rules (_reopened_refusal_first): httpd refuses before any rule runs."""
    guard = Stmt("if", [f"($uri {'~*' if nocase else '~'} {_quote_regex(regex)})"], refusal.span, block=[refusal])
    for stmts in (loc.statements, loc.directory_rules):
        stmts[:] = [guard if st is refusal else st for st in stmts]
    server.settings.setdefault("symlinks_reopened_at", []).append((loc, guard))


def _symlinks_taken_unplaced(ctx: Context, server: Server, directory: str) -> list[tuple[str, object]]:
    r"""The sections the translation cannot place (<If>, <DirectoryMatch>, <Directory ~>, recorded by
    access.record_unplaced_options) that may apply to DIRECTORY or below it and whose Options take both
    FollowSymLinks and SymLinksIfOwnerMatch away. httpd merges them after the plain <Directory> sections, and
    its rewrite fixup refuses where they apply (AH00670; observed: `<If "%{REQUEST_URI} =~ /\.txt$/"> Options
    None` and `<Directory ~ "/data/sub"> Options -FollowSymLinks` answered 403 there). Each as its label and
    the span of its Options."""
    from .access import _merge_options
    from .rewrite_handler import directory_options
    base = directory_options(ctx, server, directory, plain=True)
    holders = [server] if server is ctx.main else [ctx.main, server]
    out = []
    for label, regex, where, words in (r for h in holders for r in h.settings.get("unplaced_options", [])):
        if where is not None and not _related(directory, where) or regex is not None and \
                not _may_match_below(regex, directory):
            continue
        if base is not None and not _merge_options(base, words) & _SYMLINK_OPTIONS:
            out.append((label, words[0][1]))
    return out


def _unplaced_rule_statements(ctx: Context, server: Server, state: RewriteContext) -> list[Stmt]:
    """The rules of STATE as nginx statements, not placed and saying nothing (the directory is refused in
    their place, A2N844): where the unplaced section does not apply, httpd runs them, and its internal redirect
    to a rule's result runs the server's `SetEnvIf Request_URI` lines again there, which the Header lines of its
    answer test (`Header onsuccess set X-Content-Type-Options nosniff env=!txt` sent on /admin/a.txt?debug=1,
    which a rule under a query condition rewrote to /api/). The layout sets those variables again from them
    ahead of the refusal (emit.layout._reread_ahead_of_refusals). They stop at a rule not compiled as is (the
    403 standing for it, _refused_instead); empty where the rules chain, skip or start over."""
    if any("C" in r.flags or "S" in r.flags or "N" in r.flags for r in state.rules):
        return []
    said, ctx.diags = ctx.diags, Diagnostics()    # (the rules' own diagnostics are said where they are left out)
    try:
        compiler = Compiler(ctx, server, state)
        out: list[Stmt] = []
        for rule in state.rules:
            try:
                out.extend(compiler.rule_statements(rule))
            except Unsupported as exc:
                out.extend(_refused_instead(compiler, rule, exc))
                break
    finally:
        ctx.diags = said
    return out


def _may_match_below(regex: str, directory: str) -> bool:
    """Whether a <DirectoryMatch> REGEX may match DIRECTORY or a directory below it: unless anchored at a
    literal path beside it."""
    literal = re.match(r"\^((?:[\w/.~-]|\\[./-])*)", regex)
    start = literal.group(1).replace("\\", "") if literal else ""
    return start.startswith(directory) or directory.startswith(start)


def _refuse_unplaced(ctx: Context, server: Server, state: RewriteContext, span, unplaced: list) -> None:
    """Refuse the whole directory of STATE, whose rewrite fixup httpd refuses (AH00670) where sections the
    translation cannot place take its symlink Options away (_symlinks_taken_unplaced): nginx cannot tell
    where they apply, and running the rules there would serve what httpd refuses. The 403 is the translation's
    (SYMLINKS_UNPLACED): where the section does not apply httpd runs the rules and answers, so the refusal
    carries the headers that answer may (emit.inherit.refused_headers), read as the rules leave the
    `SetEnvIf Request_URI` variables (_unplaced_rule_statements)."""
    prefix = state.per_dir.rstrip("/") + "/"
    _, refusal = _refuse_prefix(server, prefix, span, SYMLINKS_UNPLACED, ("", "^~"))
    refusal.unplaced_rules = _unplaced_rule_statements(ctx, server, state)
    labels = ", ".join(label for label, _ in unplaced)
    ctx.diags.add("A2N844", f"RewriteEngine On in <Directory {state.directory}> while Options in {labels} allow "
                  "neither FollowSymLinks nor SymLinksIfOwnerMatch where that section applies: httpd answers 403 "
                  f"there (AH00670); the translation cannot place the section and answers 403 for all of {prefix}",
                  span, directive="RewriteEngine", related=[s for _, s in unplaced],
                  hint="set the Options in a <Directory>, <Files> or <Location> section the translation places, or "
                  "add Options +SymLinksIfOwnerMatch to that section if the rules are meant to run")


def _reopened(ctx: Context, server: Server, directory: str, own: set[str], refused) -> list[str]:
    """The URL prefixes of the plain <Directory> sections below DIRECTORY (whose Options REFUSED refuses) where
    the Options in force allow symlinks again, and which hold no mod_rewrite directive of their own (OWN):
    httpd keeps the directory's rules and engine there and runs them. A deeper section brings them back
    with Options of its own, or without any: merge_core_dir_configs applies the +/- modifiers carried from
    above again (`Options +FollowSymLinks` then `Options None` in the directory: 403 there, the file served
    in a <Directory> below holding only Header lines). Nothing where a <Location> setting Options may refuse
    too (_location_options_refused)."""
    from .rewrite_handler import option_directories
    holders = [server] if server is ctx.main else [ctx.main, server]
    if any(s.settings.get("location_options") for h in holders for s in h.scopes if s.kind == "location"):
        return []
    out = []
    for below in option_directories(ctx, server, directory):
        prefix = _directory_url(ctx, server, below) if below not in own and not refused(below) else None
        if prefix is not None:
            out.append(prefix.rstrip("/") + "/")
    url = _directory_url(ctx, server, directory)
    if url is not None and _reapplied(ctx, server, directory):
        out += [p.rstrip("/") + "/" for p in _reopening_locations(ctx, server)
                if p.startswith(url) and p.rstrip("/") + "/" != url and p.rstrip("/") + "/" not in out]
    return out


_SYMLINK_OPTIONS = {"followsymlinks", "symlinksifownermatch"}


def _reapplied(ctx: Context, server: Server, directory: str) -> bool:
    """Whether a section merged over DIRECTORY's configuration without Options of its own (a <Location>, a
    <Files>) allows symlinks there: merge_core_dir_configs applies the +/- modifiers carried from above again
    (`Options +FollowSymLinks` then `Options None` in the directory: 403 there, but the file served where a
    <Location> or <Files> section holding only Header lines also matches)."""
    from .access import _merge_options
    from .rewrite_handler import directory_options
    options = directory_options(ctx, server, directory)
    return options is not None and bool(_merge_options(options, []) & _SYMLINK_OPTIONS)


def _reopening_locations(ctx: Context, server: Server) -> list[str]:
    """The paths of the plain <Location> sections without Options or mod_rewrite directives of their own: httpd
    merges them last, over the directory's configuration, and keeps the directory's rules there."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    return [s.path for h in holders for s in h.scopes if s.kind == "location" and not s.regex
            and not s.settings.get("location_options") and "rewrite" not in s.settings
            and not any(c in s.path for c in "*?[")]


def _location_covers(path: str, url: str) -> bool:
    """Whether a <Location PATH> matches every URL under URL (a directory's, with its slash): httpd matches
    the path as a prefix ending at a slash or at the URL's end."""
    return url.startswith(path) and (path.endswith("/") or url[len(path):len(path) + 1] in ("/", ""))


def _reopening_files(ctx: Context, server: Server, directory: str) -> list[tuple[str, str, bool]]:
    """The <Files>/<FilesMatch> sections without Options or mod_rewrite directives of their own that apply to
    files of DIRECTORY (at server level, or in a <Directory> at or above it) where the modifiers applied again
    allow symlinks (_reapplied): httpd merges them after the directory walk and runs the directory's rules for
    the files they match (not for a section with Options of its own: access._record_symlink_options). Each as
    its pattern, its URL regular expression and whether it ignores case."""
    from .rewrite_handler import _under, _written_options
    if not _reapplied(ctx, server, directory):
        return []
    holders = [server] if server is ctx.main else [ctx.main, server]
    out = []
    for h in holders:
        for scope in h.settings.get("files", []):
            parent = scope.parent
            if scope.kind != "files" or not scope.files_regex or "rewrite" in scope.settings \
                    or _written_options(scope) or scope.settings.get("section_options") \
                    or any(scope.files_regex == r for _, r, _ in out):
                continue
            if parent is None or parent.kind == "directory" and not parent.regex \
                    and _under(directory, (parent.fs_path or "").rstrip("/")):
                out.append((scope.path, scope.files_regex, scope.nocase))
    return out


def _reopening_matches(ctx: Context, server: Server, directory: str) -> list[str]:
    """The regular expressions of the <LocationMatch> (`<Location ~>`) sections without Options or mod_rewrite
    directives of their own that may match URLs of DIRECTORY, where the modifiers applied again allow symlinks
    (_reapplied): httpd merges them last and runs the directory's rules for the URLs they match."""
    url = _directory_url(ctx, server, directory)
    if url is None or not _reapplied(ctx, server, directory):
        return []
    holders = [server] if server is ctx.main else [ctx.main, server]
    out = []
    for scope in (s for h in holders for s in h.scopes if s.kind == "location" and s.regex):
        if scope.settings.get("location_options") or "rewrite" in scope.settings:
            continue
        literal = re.match(r"\^((?:[\w/.~-]|\\[./-])*)", scope.path)
        start = literal.group(1).replace("\\", "") if literal else ""
        regex = f"(?i:{scope.path})" if scope.nocase else scope.path
        if (start.startswith(url) or url.startswith(start)) and regex not in out:
            out.append(regex)
    return out


def _unless_matching(loc: Location, refusal: Stmt, matches: list[str]) -> Stmt:
    """The directory's REFUSAL in LOC made to spare the URLs the regular expressions MATCHES accept (the
    <LocationMatch> sections that bring FollowSymLinks back, _reopening_matches): nginx never consults their
    regex locations under the directory's `^~` one. Returns the guard standing for the refusal."""
    regex = "|".join(f"(?:{m})" for m in matches) if len(matches) > 1 else matches[0]
    guard = Stmt("if", [f"($uri !~ {_quote_regex(regex)})"], refusal.span, block=[refusal])
    for stmts in (loc.statements, loc.directory_rules):
        stmts[:] = [guard if st is refusal else st for st in stmts]
    return guard


def _reopened_refusal_first(server: Server) -> None:
    """The refusal of a directory whose rules are translated for the sections below it that bring FollowSymLinks
    back (_reopened) goes ahead of them in the directory's own location: httpd refuses there (AH00670) before
    any rule runs, where a rule's redirect would answer first in nginx."""
    for loc, refusal in server.settings.pop("symlinks_reopened_at", []):
        for stmts in (loc.statements, loc.directory_rules):
            if any(st is refusal for st in stmts):
                stmts[:] = [refusal] + [st for st in stmts if st is not refusal]


def _beneath(ctx: Context, server: Server, below: str, reopened: list[str]) -> bool:
    prefix = _directory_url(ctx, server, below)
    return prefix is not None and any((prefix.rstrip("/") + "/").startswith(p) for p in reopened)


def _location_options_refused(ctx: Context, server: Server, state: RewriteContext, directory: str, refuse) -> bool:
    """A <Location> whose Options (merged after the directory's, not translated: A2N743) take both FollowSymLinks
    and SymLinksIfOwnerMatch away: httpd answers 403 to every request of the directory's URLs under it
    (`<Location /docs> Options Indexes`), as for the directory's own Options. Returns whether that is the whole
    directory (a <LocationMatch> doing so is taken to cover it all, narrower than httpd where it matches only
    some of its URLs); a <Location> below the directory's URL is refused here. Without a trailing slash such a
    <Location> also takes in its name (`/docs/sub`, a subdirectory without its slash): mod_rewrite's fixup
    refuses it before mod_dir's slash redirect, as for a <Directory> below whose Options do so (the refusal
    below, which the exact location of the name keeps too)."""
    from .access import _merge_options
    from .rewrite_handler import directory_options
    base = directory_options(ctx, server, directory)
    if base is None:
        return False
    url = state.per_dir.rstrip("/") + "/"
    holders = [server] if server is ctx.main else [ctx.main, server]
    for scope in (s for h in holders for s in h.scopes if s.kind == "location"):
        words = scope.settings.get("location_options")
        if not words or _merge_options(base, words) & {"followsymlinks", "symlinksifownermatch"}:
            continue
        path = scope.path
        if scope.regex:
            literal = re.match(r"\^((?:[\w/.~-]|\\[./-])*)", path)
            start = literal.group(1).replace("\\", "") if literal else ""
            if start.startswith(url) or url.startswith(start):
                return True
            continue
        if url.startswith(path.rstrip("/") + "/") or url == path:
            return True
        if path.startswith(url):
            refuse(path.rstrip("/") + "/", SYMLINKS_REFUSAL if path.endswith("/") else SYMLINKS_REFUSAL_BELOW)
    return False


def finish_model(ctx: Context) -> None:
    """Per-directory rules no server serves. Where the directory is related to none of the trees the
    configuration maps URLs into (DocumentRoots it sets, Alias targets, and no dynamic roots), httpd never applies
    them: nothing is lost for this input, which a warning says (another file may map URLs there). Where an
    Alias or a parent directory could bring requests to them, they are not translated, an error."""
    states = [s for server in [ctx.main] + ctx.model.servers
              for s in server.settings.get("directory_rewrites", {}).values()]
    trees = _served_trees(ctx)
    for state in {id(s): s for s in states}.values():
        if state.mapped:
            continue
        directory = (state.directory or "").rstrip("/")
        inert = trees is not None and not any(_related(directory, tree) for tree in trees)
        if state.shadowed is not None and state.rules:
            said = ctx.diags.add("A2N835", f"RewriteRule in <Directory {state.directory}>: an Alias, Redirect or "
                                 f"ProxyPass maps its URL {state.shadowed} before the document root does, so no "
                                 f"request reaches the directory and httpd never applies its {len(state.rules)} "
                                 "rule(s); nothing was emitted", state.rules[0].span, directive="RewriteRule")
            for rule in state.rules:
                rule.settle(ctx, Disposition.APPROXIMATE, said)
            for directive in state.directives:
                ctx.redispose(directive, Disposition.APPROXIMATE)
            continue
        if inert and state.rules:
            said = ctx.diags.add("A2N835", f"RewriteRule in <Directory {state.directory}>: no DocumentRoot or "
                                 f"Alias of this configuration maps URLs into the directory, so httpd never applies "
                                 f"its {len(state.rules)} rule(s); nothing was emitted", state.rules[0].span,
                                 directive="RewriteRule", hint="translate it together with the file that maps URLs "
                                 "there, if one does")
            for rule in state.rules:
                rule.settle(ctx, Disposition.APPROXIMATE, said)
        for rule in [] if inert else state.rules:
            rule.settle(ctx, Disposition.UNSUPPORTED, ctx.diags.add(
                "A2N826", f"RewriteRule in <Directory {state.directory}>: no DocumentRoot of this configuration "
                "serves the directory, so the URL it governs is unknown; nothing was emitted", rule.span,
                directive="RewriteRule"))
        for directive in state.directives:
            ctx.redispose(directive, Disposition.APPROXIMATE if inert else Disposition.UNSUPPORTED)


def _served_trees(ctx: Context) -> list[str] | None:
    """The filesystem trees URLs map into (None when some are unknown: built per request by AliasMatch or
    vhost_alias, or a DocumentRoot the input does not set, whose compiled-in default depends on the build)."""
    from .rewrite_handler import document_root
    trees = []
    for server in ctx.model.servers:
        if any(k in server.settings for k in ("vhost_root", "vhost_cgi")) or server.root_span is None:
            return None
        trees.append(document_root(ctx, server))
        for route in routes_in_force(server, ctx.main):
            if route.kind == "alias":
                if route.regex:
                    return None
                trees.append(route.target.rstrip("/"))
    return trees


def _related(directory: str, tree: str) -> bool:
    """One is the other or lies below it, by whole path components."""
    return directory == tree or directory.startswith(tree + "/") or tree.startswith(directory + "/") or not directory


def _merged_with_main(state: RewriteContext | None, main: RewriteContext) -> RewriteContext | None:
    """A virtual host's rewrite state as httpd merges it: the engine setting comes from the main server
    unless the host sets its own, and the main server's rules join only with Inherit (or InheritDown)."""
    mode = (state.inherit if state is not None else None) or main.inherit_down
    if state is None:
        if mode is None or not main.rules:
            return None
        state = RewriteContext()
    merged = RewriteContext(engine=state.engine if state.engine is not None else main.engine,
                            engine_span=state.engine_span or main.engine_span, base=state.base,
                            rules=list(state.rules), pending=state.pending, directives=list(state.directives),
                            per_dir=state.per_dir)
    if mode is not None:
        copies = [RRule(r.pattern, r.substitution, dict(r.flags), list(r.conds), r.span, r.directive, r.index)
                  for r in main.rules]
        merged.rules = copies + merged.rules if mode == "before" else merged.rules + copies
    return merged


_INDEX_FROM = "$a2n_index_from"
_INDEX_PASS = "$a2n_index_pass"
# the server's rewrite phase: which pass it is (_method_pass), and its value on mod_dir's subrequests
_PASS_KIND = "$a2n_rw_method_pass"
_SUBREQUEST_PASS = "1::000"


def _skipped_in_subrequest(rule: RRule) -> bool:
    """httpd skips [NS] rules and 3xx redirects ([R], RULEFLAG_FORCEREDIRECT) in a subrequest
    (apply_rewrite_list in mod_rewrite.c): mod_dir finds a directory's index file through one, so these rules
    do not see the index file's URL. [R=4xx/5xx] is a status rule and runs there too."""
    if "NS" in rule.flags:
        return True
    if "R" not in rule.flags:
        return False
    code = _status(rule.flags["R"])
    return code is not None and 300 <= int(code) < 400


def _may_rewrite_index(ctx: Context, server: Server, state: RewriteContext, rule: RRule) -> bool:
    """Whether the per-directory RULE's pattern may match the path of an index file mod_dir looks up (an index
    name, after the directory's own path relative to the rules' one): false only where the pattern ends with
    a literal text that no index name of the directory's URLs ends with (a pattern ending in `txt$`, index.html)."""
    from .rewrite_handler import document_root
    directory = state.directory or document_root(ctx, server) + state.per_dir
    names = {n for _, found in dirindex.index_variants(ctx, server, directory, state.per_dir) for n in found}
    return _may_match_names(rule, names)


def _may_match_names(rule: RRule, names: set[str]) -> bool:
    """Whether RULE's pattern may match a path ending in one of NAMES: false only where there is none, or the
    pattern ends with a literal text that is neither the end of one of them nor a path ending in one."""
    if not names:
        return False
    tail = re.search(r"((?:\\[^A-Za-z0-9]|[^\\.^$*+?()\[\]{}|])+)\$$", rule.pattern)
    if rule.pattern.startswith("!") or "|" in rule.pattern or tail is None:
        return True
    literal = re.sub(r"\\(.)", r"\1", tail.group(1))
    fold = (lambda t: t.lower()) if "NC" in rule.flags else (lambda t: t)
    return any(fold(n).endswith(fold(literal)) or fold(literal).endswith("/" + fold(n)) for n in names)


# conditions that read the same value on mod_dir's index subrequest as on the directory URL's own request
_PATH_FREE_TESTS = {"%{HTTP_HOST}", "%{HTTPS}", "%{SERVER_NAME}", "%{SERVER_PORT}", "%{REQUEST_SCHEME}"}


def _skipped_on_index_pass(ctx: Context, server: Server, rule: RRule) -> bool:
    """Whether a server-context RULE must not run on nginx's index pass. mod_dir looks a directory's index
    file up in a subrequest, where httpd skips [R=3xx] and [NS] rules (_skipped_in_subrequest), and serves its
    result: observed with httpd 2.4, `RewriteRule ^/x/index\\.html$ http://... [R]` answers GET /x/ with the
    index file (and GET /x/index.html with the redirect), as does `RewriteRule ^/admin(?:/(.*))?$ ... [R]` for
    a per-directory [END] rewrite to /admin/, whose result runs no rule but whose index subrequest runs the
    server's rules again. nginx's index module redirects internally to the index file's URL, which runs the
    server's rewrite phase again, the redirect included. Only where the pattern may match an index file's URL,
    and not for a rule that matches every URL under conditions the index file's URL does not change: that
    one applied to the directory URL already."""
    if not _skipped_in_subrequest(rule):
        return False
    if rule.pattern in _MATCH_ALL | _WHOLE and \
            all(c.test.upper() in _PATH_FREE_TESTS and not c.pattern.lstrip("!").startswith("-") for c in rule.conds):
        return False
    return _may_match_names(rule, _server_index_names(ctx, server))


def _server_index_names(ctx: Context, server: Server) -> set[str]:
    """Every relative DirectoryIndex name the server's requests may meet (httpd's default index.html among
    them): those of the main server, the server and each of their sections."""
    from ..emit.dirindex import DISABLED_INDEX
    holders = [server] if server is ctx.main else [ctx.main, server]
    names = {"index.html"}
    for holder in holders:
        scopes = holder.scopes + holder.settings.get("directories", []) + holder.settings.get("files", [])
        for statements in [holder.statements] + [scope.statements for scope in scopes]:
            for st in statements:
                if st.name == "index":
                    names.update(n for n in st.args if n != DISABLED_INDEX and not n.startswith("/") and "$" not in n)
    return names


def _end_lost_in_subrequest(ctx: Context, server: Server, state: RewriteContext, rule: RRule) -> bool:
    """Whether a per-directory [END] rewrite to a URL path behaves as [L] on nginx's index pass in a way that
    matters. mod_dir looks a directory's index file up in a subrequest, which has a pool of its own: the rule
    applying there notes END in the subrequest's pool (really_last_key), and the main request takes the
    subrequest's result (ap_internal_fast_redirect) and serves it through an internal redirect from its own
    pool, where no END is noted: the server's rules, and the per-directory rules of the result, run again
    (observed with httpd 2.4: GET /docs/inner/?q=1, the index file rewritten [END] to /shop/index.html, meets
    a server rule's [R=303] for /shop; GET /docs/inner/a.txt?q=1, rewritten to /shop/a.txt, does not). nginx's
    index module redirects to the index file's URL and runs the rule again, where its `break` serves the result
    as for a direct request. Only where the rule may rewrite an index file's path and the result may meet
    server rules, or per-directory rules."""
    if not ends_rewriting(rule) or rule.substitution == "-" or {"R", "P", "F", "G", "H"} & set(rule.flags) \
            or re.match(r"[a-z][a-z0-9+.-]*://", rule.substitution, re.I) \
            or not _may_rewrite_index(ctx, server, state, rule):
        return False
    static = re.split(r"[$%?]", rule.substitution, maxsplit=1)[0]
    if not static.startswith("/"):
        static = (state.base or state.per_dir or "/").rstrip("/") + "/" + static
    rules = server.settings.get("rewrite_server_rules") or []
    if any(not (_apart(r.pattern.lower(), static.lower()) if "NC" in r.flags else _apart(r.pattern, static))
           for r in rules):
        return True
    return any(static.startswith(p) or p.startswith(static) for p in server.settings.get("rewrite_prefixes", []))


def _index_pass_end(compiler: Compiler, rule: RRule, guards: list[str], marks: list[str]) -> list[Stmt]:
    """The statements of a per-directory [END] rule (_end_lost_in_subrequest) on nginx's index pass: the rule as
    [L], its result through the server's rules again (emit.rerun) as httpd's internal redirect does. Where that
    cannot be translated, the requests it applies to on that pass are refused (403), as an [F] rule of the same
    tests."""
    flags = {k: v for k, v in rule.flags.items() if k != "END"}
    flags["L"] = ""
    copy = RRule(rule.pattern, rule.substitution, flags, list(rule.conds), rule.span, rule.directive, rule.index)
    tests = list(guards) + [f"{_INDEX_PASS} = 1"]
    try:
        stmts = compiler.rule_statements(copy, tests, marks)
    except Unsupported:
        refusal = RRule(rule.pattern, "-", {**{k: v for k, v in rule.flags.items() if k == "NC"}, "F": ""},
                        list(rule.conds), rule.span, rule.directive, rule.index)
        try:
            return compiler.rule_statements(refusal, tests, marks)
        except Unsupported:
            return []   # its tests cannot be compiled: the rule itself is left out (its own error says so)
    rules = compiler.server.settings.get("rewrite_server_rules") or []
    for st in stmts:
        if st.name == "if" and st.block:
            st.block[:] = [_rerun(b, rules, False, set()) for b in st.block]
    return [_rerun(st, rules, False, set()) for st in stmts]


def _index_pass_test(span) -> list[Stmt]:
    """Whether this pass is nginx's index redirect: the previous pass through these rules ended, unrewritten,
    on the directory URL this one extends by a file name (the marker is set only where the rules let a URL
    through, and cleared here, so a rewrite's internal redirect never counts as one)."""
    pair = "$a2n_index_pair"
    return [
        Stmt("set", [_INDEX_PASS, ""], span),
        Stmt("set", [pair, f"{_INDEX_FROM} $uri"], span),
        Stmt("if", [f'({pair} ~ "^(/(?:.*/)?) \\1[^/]+$")'], span, block=[Stmt("set", [_INDEX_PASS, "1"], span)],
             comment="mod_dir looks the index file up in a subrequest"),
        Stmt("set", [_INDEX_FROM, ""], span),
    ]


def _document_root_index_guard(ctx: Context, server: Server, state: RewriteContext,
                               statements: list[Stmt]) -> list[Stmt]:
    """First among the server's rules where one of them serves its result from the document root through an
    internal location (rewrite_compile `document_root_file`): where that result is a directory, nginx's index
    module redirects internally to the index file under the location's prefix, which runs the server's rewrite
    phase again, and a rule whose pattern matches that URI too (`files`, `^/(.*)$`) rewrites it once more,
    until nginx's limit of internal redirects (500), the <Location> headers carried for the request's own URL
    lost. httpd's index lookup is a subrequest for the request's own URL plus the index name (A2N345 says so),
    never a URL of the internal location: on a later pass whose URI is under such a prefix no rule runs, and
    the first pass's values stay (a request that asks for such a URI itself runs them). Where a rule may
    refuse that subrequest (an error status, which mod_dir answers with), or stands refused untranslated, the
    rules still run: skipping them could serve an index file httpd refuses."""
    made = ctx.options.get("rewrite_docroot_locations", {})
    if not any(holder == id(server) for holder, _ in made):
        return []
    if any(_refuses(r.directive) and not _skipped_in_subrequest(r) for r in state.rules) or \
            _holds_refused_rule(statements):
        return []
    again = ctx.model.shared_map("a2n_docroot_pass_", f"{rewrite_pass_again(ctx)}$uri",
                                 [(r"~^1/a2n_docroot_\d+/", "1")], '""', volatile=True)
    return [Stmt("if", [f"({again})"], None, block=[Stmt("break", [], None)],
                 comment="nginx's index redirect into the document root's internal location: no rule runs again")]


def _holds_refused_rule(statements: list[Stmt]) -> bool:
    return any(st.comment == REFUSED_RULE or st.block and _holds_refused_rule(st.block) for st in statements)


def _dir_method_pass(span) -> list[Stmt]:
    """%{REQUEST_METHOD} of per-directory rules (rewrite_compile.DIR_METHOD), after _index_pass_test. mod_dir
    looks a directory's index file up in a subrequest (ap_sub_req_lookup_uri, whose method is always GET), and
    the directory's rules see it with GET: httpd serves POST / where a POST-only [F] rule matches index.html.
    nginx's index redirect runs the location's rules again with the request's own method ($request_method)."""
    return [
        Stmt("set", [DIR_METHOD, "$request_method"], span),
        Stmt("if", [f'({_INDEX_PASS} = 1)'], span, block=[Stmt("set", [DIR_METHOD, "GET"], span)],
             comment="mod_dir looks the index file up in a GET subrequest"),
    ]


def _may_refuse(rule: RRule) -> bool:
    """Whether httpd may answer a request with an error status through this rule: [F], [G], [R=4xx/5xx], or a
    rewrite in a per-directory context, whose internal redirect can come back to the same rules and end in
    httpd's redirect limit (500), and whose result httpd checks against the access rules of its own URL (a
    login, a refusal), [END] or not: [END] stops the rules, not the access checks of the internal redirect."""
    if _refuses(rule.directive):
        return True
    return not (rule.substitution == "-" or any(f in rule.flags for f in ("R", "P")))


def _onsuccess_headers(ctx: Context, server: Server) -> bool:
    """Whether an onsuccess `Header` line (one nginx sends through a status gate: onsuccess) holds anywhere in
    SERVER or the main server: at server level or in a <Location>, <Directory> or <Files> section."""
    gated = ctx.model.onsuccess_ungated
    holders = [server] if server is ctx.main else [ctx.main, server]
    statements = list(ctx.model.http_statements) + [st for h in holders for st in h.statements] + \
        [st for scope in header_scopes(ctx, server, ("location", "directory", "files")) for st in scope.statements]
    return any(st.name == "add_header" and len(st.args) >= 2 and st.args[1] in gated for st in statements)


def _redirects_refused(ctx: Context, server: Server, rules: list[RRule]) -> list[RRule]:
    """Per-directory rules left out (A2N745) among which some redirect ([R=3xx]) and none refuses or proxies:
    as [F] rules of the same tests (and the same subrequest skip: httpd runs no 3xx redirect in mod_dir's
    index subrequest), where an onsuccess `Header` line holds in the server. httpd's redirect carries only the
    `Header always` lines (ap_send_error_response sends err_headers_out alone); left out, nginx would serve the
    URL (a 405 for a POST to a file stands for httpd's 200) with the onsuccess lines too, and an onsuccess
    X-Frame-Options beside an always one is another protection than httpd's. The 403 nginx answers in the
    redirect's place carries the always lines alone, as httpd's redirect does. Nothing where the rules chain
    ([C], [S]): the redirects' own tests would not be theirs alone."""
    if any("C" in r.flags or "S" in r.flags for r in rules) or not _onsuccess_headers(ctx, server):
        return []
    out = []
    for rule in rules:
        if "R" not in rule.flags or not _skipped_in_subrequest(rule):
            continue
        flags = {k: v for k, v in rule.flags.items() if k == "NC"}
        flags.update(F="", NS="")
        out.append(RRule(rule.pattern, "-", flags, list(rule.conds), rule.span, rule.directive, rule.index))
    return out


def _refuse_region(ctx: Context, server: Server, per_dir: str, rule: RRule, rules: list[RRule],
                   proxied: bool = False, directory: str | None = None) -> None:
    """The URLs of a per-directory context whose rules (RULES) are left out answer 403: where a left-out rule would
    refuse a request, serving it would widen access; where it proxies (PROXIED, A2N882), httpd answers from the
    backend, and its answer of any status carries the onsuccess Header lines of the server and the URL's sections
    (mod_proxy's response fills r->headers_out, which mod_headers' FIXUP_HEADERS_OUT filter reaches), where nginx
    would serve the local file or answer its own 404 without them. The 403 carries the headers of the sections the
    rules may rewrite to, which httpd's answer may (refused_directory_headers), here and in the locations below the
    directory the layout repeats the refusal in (`refusal_headers`), and the layout sets the SetEnvIf variables its
    Header lines test again from the rules' results (refused_rule_results). Where nginx can tell which requests
    the rules apply to, the refusal says so (_directory_rule_tests): elsewhere httpd serves, with the onsuccess
    Header lines too."""
    prefix = per_dir.rstrip("/") + "/"
    refusal = Stmt("return", ["403"], rule.span, comment=DIRECTORY_REFUSAL)
    carried = refused_directory_headers(ctx, server, rules, prefix)
    server.settings.setdefault("refused_rule_results", []).append(
        (refusal, prefix, _directory_slash_on(ctx, server), *refused_rule_results(rules, prefix)))
    if carried:
        server.settings.setdefault("refusal_headers", []).append((refusal, carried))
    urls = [prefix] + _alias_urls(ctx, server, prefix)
    if directory is not None and len(urls) == 1:
        _directory_rule_tests(ctx, server, refusal, rules, prefix, directory)
    # the server's rules, compiled after the directories', note a rewrite into these URLs (A2N889)
    server.settings.setdefault("rewrite_refused_directories", []).append((urls, rule.span))
    for url in urls:
        loc = next((l for l in server.locations if l.path == url and l.modifier in ("", "^~")), None)
        if loc is None:
            loc = Location("^~" if url != "/" else "", url, [], rule.span)
            server.locations.append(loc)
        loc.statements.insert(0, refusal)
        loc.directory_rules.append(refusal)
        loc.statements.extend(Stmt(h.name, list(h.args), h.span, comment=h.comment, resets=h.resets,
                                   conditional=h.conditional, late=h.late) for h in carried)
    if proxied:
        ctx.diags.add("A2N882", f"RewriteRule {rule.pattern} {rule.substitution}: the per-directory rules of "
                      f"{prefix} are not translated and one proxies requests there, which nginx would serve from "
                      "the local files without the headers httpd's proxied answer carries; the translation "
                      "refuses every request of the directory (403)", rule.span, directive="RewriteRule")
        return
    ctx.diags.add("A2N838", f"RewriteRule {rule.pattern} {rule.substitution}: the per-directory rules of {prefix} "
                  "are not translated and may refuse requests there, so the translation refuses every request "
                  "of the directory (403)", rule.span, directive="RewriteRule")



def _directory_rule_tests(ctx: Context, server: Server, refusal: Stmt, rules: list[RRule], prefix: str,
                          directory: str) -> None:
    """The tests saying where the per-directory RULES of DIRECTORY (served at the URL PREFIX) apply, on the
    `return 403` standing for them (Stmt.rule_tests), as for a <Location>'s (_location_rule_tests). httpd runs
    them in its fixup, after the access checks, against the file path without the directory's (`sub/a.txt` for
    `GET /old/sub/a.txt` in <Directory /srv/www/old>): where one applies, its [F] is httpd's error, carrying the
    `Header always` lines alone; where none does, its handler serves the file, and its success carries the
    onsuccess lines too (`Header always set X-Frame-Options SAMEORIGIN` with `Header set X-Frame-Options
    DENY`: both values on `GET /old/a.txt`), where nginx's refusal sent the always line alone. The tests read
    the URL, the prefix standing for the directory; not where Options without FollowSymLinks refuse (AH00670)
    below it, nor where nginx cannot tell where a rule applies: the refusal then sends what it did."""
    from .rewrite_handler import directory_options, option_directories
    links = set()
    for place in [directory] + option_directories(ctx, server, directory):
        options = directory_options(ctx, server, place)
        if options is None:
            return
        links.add(bool(options & {"followsymlinks", "symlinksifownermatch"}))
    if links != {True}:
        return
    tests = _compiled_rule_tests(_LocationConditions(ctx, server, RewriteContext(per_dir=prefix)), rules,
                                 REWRITE_URI, True)
    if not isinstance(tests, str):
        refusal.rule_tests = tests


def _alias_urls(ctx: Context, server: Server, prefix: str) -> list[str]:
    """The URL prefixes an Alias of the server maps onto the directory the document-root URL PREFIX serves
    (its requests reach the same directory, and its per-directory rules, there too)."""
    from .core import DEFAULT_DOCUMENT_ROOT
    root = (server.root or ctx.main.root or DEFAULT_DOCUMENT_ROOT).rstrip("/")
    directory = (root + prefix).rstrip("/")
    out = []
    for r in routes_in_force(server, ctx.main):
        target = r.target.rstrip("/")
        if r.kind == "alias" and not r.regex and not r.params.get("cgi") and \
                (directory == target or directory.startswith(target + "/")):
            out.append(r.path.rstrip("/") + directory[len(target):] + "/")
    return out


def _directory_url(ctx: Context, server: Server, directory: str, routes: bool = True) -> str | None:
    """The URL path a filesystem directory serves through the server's DocumentRoot (with ROUTES: None when
    an Alias, Redirect or ProxyPass maps that URL first)."""
    from .core import DEFAULT_DOCUMENT_ROOT
    root = (server.root or ctx.main.root or DEFAULT_DOCUMENT_ROOT).rstrip("/")
    directory = directory.rstrip("/")
    if directory == root:
        url = "/"
    elif directory.startswith(root + "/"):
        url = directory[len(root):] + "/"
    else:
        return None
    # mod_alias and mod_proxy map a URL before the document root does: under an Alias elsewhere (or a
    # Redirect, a ProxyPass) no request reaches the directory through the document root
    listed = routes_in_force(server, ctx.main) if routes else []
    for r in listed:
        prefix = r.path.rstrip("/")
        if r.regex or r.kind not in ("alias", "redirect", "proxy") or not _covers(r.path, url):
            continue
        if r.kind == "alias" and (r.target.rstrip("/") + url[len(prefix):]).rstrip("/") == directory:
            continue    # an Alias onto the same directory
        if r.kind == "proxy" and (_excluded(listed, url) or _excluded_below(listed, url)):
            continue    # a `ProxyPass ... !` hands the directory's URLs (or part of them) back to the document root
        return None
    return url


def _covers(path: str, url: str) -> bool:
    """A route's prefix covers URL, by whole segments (httpd's alias_matches)."""
    prefix = path.rstrip("/")
    return url.rstrip("/") == prefix or url.startswith(prefix + "/")


def _excluded(routes: list, url: str) -> bool:
    """The first of the ProxyPass entries to match URL is a `ProxyPass P !` (P at or above URL): mod_proxy tries
    them in order and stops at the first match (proxy_trans), here one that declines, so no ProxyPass covering
    URL takes it: requests for URL walk the document root's directories, unless a Redirect or Alias takes them
    (mod_alias translates after mod_proxy declines)."""
    proxies = [r for r in routes if not r.regex and r.kind in ("proxy", "proxy-exclude", "proxy-unreachable")]
    first = next((p for p in proxies if _covers(p.path, url)), None)
    return first is not None and first.kind == "proxy-exclude"


def _excluded_below(routes: list, url: str) -> bool:
    """Some `ProxyPass P !` below URL is the first of the ProxyPass entries to match P (mod_proxy tries them in
    order and stops at the first), and no Redirect or Alias takes P: requests under P walk the directories of
    the document root, URL's among them, where the ProxyPass covering URL proxies the rest."""
    proxies = [r for r in routes if not r.regex and r.kind in ("proxy", "proxy-exclude", "proxy-unreachable")]
    for r in proxies:
        if r.kind != "proxy-exclude" or not r.path.startswith(url) or r.path.rstrip("/") == url.rstrip("/"):
            continue
        first = next(p for p in proxies if _covers(p.path, r.path))
        if first is r and not any(not o.regex and o.kind in ("alias", "redirect") and _covers(o.path, r.path)
                                  for o in routes):
            return True
    return False


def _finish_state(ctx: Context, server: Server, state: RewriteContext) -> None:
    if state.pending:
        for cond in state.pending:
            ctx.diags.add("A2N817", "RewriteCond with no RewriteRule after it: httpd ignores it", cond.span,
                          directive="RewriteCond")
    if not state.rules:
        return
    if state.engine is None and not ctx.options.get("rewrite_engine_mentioned") \
            and not ctx.options.get("whole_config"):
        # No RewriteEngine anywhere in a snippet (no Listen, <VirtualHost>, ServerRoot nor LoadModule): one
        # meant for a context that turns it on. In a whole configuration the engine is off, as in httpd.
        said = ctx.diags.add("A2N824", "the input never sets RewriteEngine: its rules are translated as if the "
                             "including context turned it on (httpd ignores them otherwise)", state.rules[0].span,
                             directive="RewriteRule", hint="add RewriteEngine On to the file if it is used on its own")
        state.engine = True
        for rule in state.rules:
            rule.settle(ctx, Disposition.APPROXIMATE, said)
        for directive in state.directives:
            ctx.redispose(directive, Disposition.APPROXIMATE)
    if not state.engine:
        for rule in state.rules:
            ctx.diags.add("A2N818", "RewriteEngine is not on in this context: httpd ignores this rule, and so does "
                          "the translation", rule.span, directive="RewriteRule")
        for directive in state.directives:
            ctx.redispose(directive, Disposition.NOT_APPLICABLE)
        return
    if state.per_dir is not None:
        blocking = per_directory_access(ctx, server, state.directory, state.per_dir)
        if blocking is not None:
            # httpd checks access before per-directory rules run; nginx runs a location's rewrites first, and
            # a rewrite (or redirect) would answer for requests httpd refuses
            where = f" ({blocking.span.file_line})" if blocking.span else ""
            refusing = next((r for r in state.rules if _may_refuse(r)), None)
            proxying = next((r for r in state.rules if "P" in r.flags), None)
            redirects = _redirects_refused(ctx, server, state.rules) if refusing is None and proxying is None \
                else []
            for rule in state.rules:
                _not_translated(ctx, rule, "A2N745", f"the access rules of a section{where} that httpd checks "
                                "before these per-directory rules would run after them in nginx",
                                refused=any(r.directive is rule.directive for r in redirects))
            if refusing is not None:
                # left out, a rule that answers with an error would let nginx serve what httpd refuses
                _refuse_region(ctx, server, state.per_dir, refusing, state.rules, directory=state.directory)
            elif proxying is not None and _onsuccess_headers(ctx, server):
                # left out, a [P] rule would let nginx serve the URL's local file (or answer its own 404)
                # where httpd answers from the backend, with the onsuccess Header lines whatever the status;
                # without such lines, the backend's answer is the whole difference (A2N745)
                _refuse_region(ctx, server, state.per_dir, proxying, state.rules, proxied=True,
                               directory=state.directory)
            if not redirects:
                return
            # the requests the redirects apply to are refused (403) in their place: compiled as the rules
            state.rules = redirects
    compiler = Compiler(ctx, server, state)
    tls = server.ssl
    # [C] chains and [S] skips make rules depend on their neighbours: keep every position (None for a rule
    # that can never fire) and leave the ruleset-wide idioms alone.
    flow = any("C" in r.flags or "S" in r.flags for r in state.rules)
    rules: list[RRule | None] = []
    for rule in state.rules:
        decided = static_https(rule, tls)
        if decided is None:
            ctx.diags.add("A2N819", f"RewriteRule {rule.pattern}: its %{{HTTPS}} condition never holds on this "
                          f"{'TLS' if tls else 'plain-HTTP'} server, so httpd never applies it", rule.span,
                          directive="RewriteRule")
            if flow:
                rules.append(None)
            continue
        rules.append(decided)
    rules = fold_proxy_env(rules, state.per_dir)
    statements: list[Stmt] = []
    location_statements: list[Stmt] = []
    # try_files falls back without marking $a2n_redirect_status: no front-controller idiom where rules test it
    fc = front_controller(rules) if not flow and not compiler.mark_redirects else None
    set_aside: list[tuple[int, RRule]] = []     # the front controller's rules, by their place in the ruleset
    kept: list[int] = list(range(len(rules)))   # the place of each rule compiled one by one
    fc_location = None
    if fc is not None:
        i, script = fc
        prefix = (state.per_dir or "/").rstrip("/") + "/"
        target = script if script.startswith("/") else (state.base or prefix).rstrip("/") + "/" + script
        fc_location = Location("^~" if prefix != "/" else "", prefix, [
            Stmt("try_files", ["$uri", "$uri/", target + "$is_args$args"], rules[i].span,
                 comment="front controller: RewriteCond !-f, !-d and RewriteRule")], rules[i].span)
        server.locations.insert(0, fc_location)
        if state.per_dir is not None:
            # approximate: the rule and its conditions, named by the one diagnostic that says how
            rules[i].settle(ctx, Disposition.APPROXIMATE, ctx.diags.add(
                "A2N836", "front controller: a path that goes on after an existing file (/file.ext/more) is "
                "rewritten to the script in nginx; httpd tests the file part, does not rewrite, and answers 404 "
                "for a static file", rules[i].span, directive="RewriteRule"))
        if state.per_dir is None:
            ctx.diags.add("A2N820", "front controller in server context: httpd tests the URL path itself as a file "
                          "name (%{REQUEST_FILENAME} is not mapped yet), which rarely exists; the translation "
                          "applies the intended document-root test (try_files)", rules[i].span,
                          directive="RewriteRule")
        set_aside = [(j, r) for j, r in enumerate(rules) if j == i or _script_passthrough(r, target)]
        kept = [j for j in range(len(rules)) if all(j != k for k, _ in set_aside)]
        rules = [rules[j] for j in kept]
    # a server's rules that httpd skips on a FallbackResource's subrequest (fallback.subrequest_pass)
    fallback_skips = state.per_dir is None and falls_back(ctx, server)
    # (each such rule compiled on its own, for its test of that pass)
    literal = [literal_redirect(r) if not flow and not fallback_skips and not (
        state.per_dir is None and r is not None and _skipped_on_index_pass(ctx, server, r)) else None for r in rules]
    run: list[int] = [i for i, lit in enumerate(literal) if lit is not None]
    map_indices: set[int] = set()
    if len(run) >= LITERAL_MAP_THRESHOLD and state.per_dir is None:
        # Literal redirects are first-match and independent: one hashed map keeps lookup cost flat.
        by_code: dict[str, list[int]] = {}
        for i in run:
            by_code.setdefault(literal[i][2], []).append(i)
        for code, indices in by_code.items():
            if len(indices) < LITERAL_MAP_THRESHOLD:
                continue
            var = f"$a2n_redirect_{code}_{len(ctx.model.maps)}"
            entries: list[tuple[str, str]] = []
            seen: set[str] = set()
            for i in indices:
                path, target, _ = literal[i]
                path = path if path.startswith("/") else "/" + path
                if path not in seen:
                    seen.add(path)
                    # nginx map strings match ignoring case, httpd's patterns do not: the value carries the
                    # path, and the redirect happens only when it equals $uri exactly.
                    entries.append((_map_key(path), f"{path} {target}"))
            span = rules[indices[0]].span
            ctx.model.maps.append(MapBlock("$uri", var, entries, '""', span=span))
            pair = f"{var}_pair"
            statements.append(Stmt("set", [pair, f"$uri {var}"], span,
                                   comment=f"{len(entries)} literal RewriteRule redirects"))
            statements.append(Stmt("if", [f'({pair} ~ "^(\\S+) \\1 (\\S+)$")'], span,
                                   block=[Stmt("return", [code, "$2$is_args$args"], span)]))
            map_indices |= set(indices)
    flow_state = _Flow()
    index_pass = False          # some rule must not run on the pass after nginx's index redirect
    fallback_pass = False       # some server rule must not run on the pass after try_files' fallback
    subrequest_skips = False    # some server rule must not run on the pass after nginx's index redirect
    starts: list[int] = []      # where each rule's statements begin among the location's
    for i, rule in enumerate(rules):
        starts.append(len(location_statements))
        if i in map_indices:
            continue
        guards, marks, blocked, never = flow_state.enter(rule, state.rules[i] if flow else rule)
        if state.per_dir is not None and rule is not None and _skipped_in_subrequest(rule):
            # httpd skips it in mod_dir's index subrequest; nginx's index redirect runs the location again
            guards = guards + [f'{_INDEX_PASS} = ""']
            index_pass = True
        if fallback_skips and rule is not None and _skipped_in_subrequest(rule):
            # httpd skips it in mod_dir's fallback subrequest; nginx's try_files runs the server's rules again
            guards = guards + [f'{FALLBACK_PASS} = ""']
            fallback_pass = True
        if state.per_dir is None and rule is not None and _skipped_on_index_pass(ctx, server, rule):
            # httpd skips it in mod_dir's index subrequest; nginx's index redirect runs the server's rules again
            guards = guards + [f'{_PASS_KIND} != "{_SUBREQUEST_PASS}"']
            subrequest_skips = True
        end_lost = state.per_dir is not None and rule is not None and _end_lost_in_subrequest(ctx, server, state, rule)
        if end_lost:
            # in mod_dir's index subrequest its END is lost to the main request: [L] there (_index_pass_end)
            index_copy = _index_pass_end(compiler, rule, guards, marks)
            guards = guards + [f'{_INDEX_PASS} = ""']
            index_pass = True
        if never:
            # (the chain mark of a rule an [S] may skip, all that stands in its place)
            (location_statements if state.per_dir is not None else statements).extend(flow_state.pending_init)
            if rule is not None:
                ctx.diags.add("A2N819", f"RewriteRule {rule.pattern}: it is chained ([C]) to a rule that never "
                              "applies on this server, so httpd never applies it either", rule.span,
                              directive="RewriteRule")
            continue
        if blocked is not None:
            _not_translated(ctx, rule, "A2N830", blocked)
            flow_state.failed(rule)
            continue
        if i > 0 and _after_same_next_rule(rules[i - 1], rule) and not guards and not marks:
            ctx.diags.add("A2N326", f"RewriteRule {rule.pattern}: the [N] rule before it has the same pattern and "
                          "repeats until that pattern no longer matches, so httpd never applies this one",
                          rule.span, directive="RewriteRule")
            continue
        if "N" in rule.flags and i == 0 and not guards and not marks:
            try:
                stmts, exact = _unrolled(ctx, compiler, rule)
            except Unsupported as exc:
                _not_translated(ctx, rule, exc.code, exc.message)
                continue
            for directive in [rule.directive] + [c.directive for c in rule.conds]:
                ctx.redispose(directive, Disposition.EXACT if exact else Disposition.APPROXIMATE)
            (location_statements if state.per_dir is not None else statements).extend(stmts)
            continue
        if guards or marks:
            try:
                stmts = compiler.rule_statements(rule, guards, marks)
            except Unsupported as exc:
                refusal = _refused_instead(compiler, rule, exc, guards)
                _not_translated(ctx, rule, exc.code, exc.message, refused=bool(refusal))
                if end_lost and refusal:
                    refusal = index_copy + refusal
                (location_statements if state.per_dir is not None else statements).extend(refusal)
                flow_state.failed(rule)
                continue
            if end_lost:
                stmts = index_copy + stmts
            flow_state.emitted(stmts)
            (location_statements if state.per_dir is not None else statements).extend(stmts)
            continue
        if rule.substitution.endswith("/$1") and captures_slash(rule.pattern) and "R" in rule.flags:
            ctx.diags.add("A2N823", f"RewriteRule {rule.pattern} {rule.substitution}: in server context $1 starts "
                          "with the path's slash, so httpd redirects to a doubled slash; the translation does the "
                          "same", rule.span, directive="RewriteRule", hint="use ^/?(.*)$ as the pattern")
        if state.per_dir is None and _split_canonical(ctx, server, rule):
            continue
        whole = whole_site_redirect(rule, server_name_variable(ctx, server)) if state.per_dir is None else None
        if whole is not None:
            original = "%{REQUEST_URI}" in rule.substitution.upper()
            statements.extend(qmark_refusal(rule, compiler.variable("REQUEST_URI") if original else "$uri"))
            statements.append(whole)
            ctx.diags.add("A2N405", f"RewriteRule {rule.pattern}: the redirect keeps the raw request path "
                          "($request_uri); httpd merges repeated slashes and re-escapes it", rule.span,
                          directive="RewriteRule")
            continue
        try:
            stmts = compiler.rule_statements(rule)
        except Unsupported as exc:
            refusal = _refused_instead(compiler, rule, exc)
            _not_translated(ctx, rule, exc.code, exc.message, refused=bool(refusal))
            (location_statements if state.per_dir is not None else statements).extend(refusal)
            continue
        (location_statements if state.per_dir is not None else statements).extend(stmts)
    if fc_location is not None and state.per_dir is not None and any(s.name == "if" for s in location_statements):
        # A request an `if` of the location matches is served with the `if`'s configuration, which has no
        # try_files (nginx does not inherit it): the front controller would answer 404. Its rule (and the
        # script's pass-through) are compiled where they stand instead, as rewrites.
        server.locations.remove(fc_location)
        for place, rule in reversed(set_aside):
            after = next((n for n, j in enumerate(kept) if j > place), None)
            at = starts[after] if after is not None else len(location_statements)
            try:
                location_statements[at:at] = compiler.rule_statements(rule)
            except Unsupported as exc:
                _not_translated(ctx, rule, exc.code, exc.message)
    # the rules after one that applies to every URL and ends the ruleset never run: mod_dir's question is
    # decided by the ones up to it (their statements end before the first of the later ones)
    reached, unreached = state.rules, None
    if not flow and fc is None:
        end = next((i for i, r in enumerate(rules) if r is not None and _ends_always(r)), None)
        if end is not None and end + 1 < len(rules):
            reached = rules[:end + 1]
            unreached = location_statements[starts[end + 1]] if starts[end + 1] < len(location_statements) else None
    slash_at = None if flow or fc is not None or not location_statements or not _directory_slash_on(ctx, server) \
        else _internal_from(rules, starts, location_statements)
    if state.per_dir is not None and slash_at:
        # the rules before answer (or leave the URL alone): where none applied, the ones from here on rewrite
        # internally, and mod_dir's fixup answers a directory requested without its slash first
        location_statements[slash_at:slash_at] = [_slash_check(state.rules[0].span)]
    if state.per_dir is not None and not slash_at and not flow and fc is None and location_statements and \
            _directory_slash_on(ctx, server) and not _only_internal(reached, _before(location_statements, unreached)):
        # answering rules and rules that rewrite internally mixed: mod_dir's 301 where one of the latter ends
        # the rules
        _slash_before_ending(ctx, compiler, reached, starts, location_statements, state.rules[0].span)
    if state.per_dir is not None and compiler.needs_dir_method and location_statements:
        location_statements[:0] = _dir_method_pass(state.rules[0].span)
        index_pass = True
    if index_pass and location_statements:
        location_statements[:0] = _index_pass_test(state.rules[0].span)
        location_statements.append(Stmt("set", [_INDEX_FROM, "$uri"], None,
                                        comment="the rules let this URL through: an index redirect may follow"))
    if state.per_dir is not None and location_statements and compiler.per_dir_proxies:
        # mod_dir's fixup runs after a [P]: its 301 for a directory without its slash, its index lookup
        span = state.rules[0].span
        from .rewrite_handler import document_root
        directory = state.directory or document_root(ctx, server) + state.per_dir
        variants = dirindex.index_variants(ctx, server, directory, state.per_dir)
        moving = dirindex.moving_rules(ctx, server, state.per_dir) if any(names for _, names in variants) else []
        noted = server.settings.setdefault("rewrite_pdir_moving", set())
        for rule in moving:
            if rule.span is None or (rule.span.file, rule.span.line) in noted:
                continue
            ctx.diags.add("A2N883", f"RewriteRule {rule.pattern} {rule.substitution}: where it maps a request's path "
                          f"to a directory under the per-directory [P] rules of {state.per_dir}, httpd's mod_dir "
                          "looks the index file up as the request's own path plus the index name, through the "
                          "server's rules again; nginx's lookup cannot follow that, so what it would proxy for "
                          "such a directory is refused (403)", rule.span, directive="RewriteRule",
                          hint="add [PT] if the substitution is meant as a URL path")
        noted.update((r.span.file, r.span.line) for r in moving if r.span is not None)
        for proxy_location in compiler.per_dir_proxies:
            proxy_location.statements.extend(dirindex.in_proxy(variants, _directory_slash_on(ctx, server), span,
                                                               moved=bool(moving)))
        dirindex.fresh_after_index_redirect(location_statements, _INDEX_PASS)
        location_statements[:0] = dirindex.entry(span)
        location_statements.extend(dirindex.leaving(variants, span))
    if state.per_dir is None and server.settings.get("rewrite_pdir_moving"):
        # the path mod_dir's index subrequest is for, which a server rule without [PT] keeps, and whether such a
        # rule mapped it to a directory of per-directory [P] rules (rewrite_dirindex)
        _mark_moving(statements, server.settings["rewrite_pdir_moving"])
        statements[:0] = [Stmt("set", [dirindex.REQUEST, "$uri"], None), Stmt("set", [dirindex.MOVER, ""], None)]
    if state.per_dir is None and (compiler.needs_method or subrequest_skips):
        statements[:0] = _method_pass(server, compiler.needs_method)
    if compiler.needs_request_uri:
        # %{REQUEST_URI} keeps the original path through the whole ruleset in server context.
        statements.insert(0, Stmt("set", ["$a2n_request_uri", "$uri"], None))
        location_statements.insert(0, Stmt("set", ["$a2n_request_uri", "$uri"], None))
    if state.per_dir is not None and location_statements and _directory_slash_on(ctx, server) and not slash_at \
            and _only_internal(reached, _before(location_statements, unreached)):
        # mod_rewrite's per-directory result waits for the handler phase (redirect-handler), while mod_dir's
        # fixup already answered a directory requested without its slash: 301 to the path with the slash
        # (after the refusals of unsafe results, which mod_rewrite's fixup answers first)
        at = _slash_point(location_statements)
        location_statements[at:at] = [_slash_check(state.rules[0].span)]
    if state.per_dir is not None and location_statements and server.settings.get("rewrite_end_mark"):
        location_statements[:0] = [_end_guard(state.rules[0].span)]
    if state.per_dir is None and server.settings.get("rewrite_end_mark"):
        statements.insert(0, Stmt("set", [END_MARK, ""], None,
                                  comment="no server-context [END] applied yet (again after an internal redirect)"))
    if state.per_dir is not None and location_statements:
        _note_internal_redirects(server, location_statements)
        location_statements[:] = _rerun_server_rules(server, state, location_statements)
        prefix = state.per_dir.rstrip("/") + "/"
        loc = next((l for l in server.locations if l.path == prefix and l.modifier in ("", "^~")), None)
        if loc is None:
            loc = Location("^~" if prefix != "/" else "", prefix, [], state.rules[0].span)
            server.locations.append(loc)
        loc.statements = location_statements + loc.statements
        loc.directory_rules.extend(location_statements)
        ctx.diags.add("A2N821", "per-directory rewrite rules run in nginx before the location's access checks; "
                      "httpd runs them after authentication and authorization", state.rules[0].span,
                      directive="RewriteRule")
    if state.per_dir is None:
        _pin_request_uri_conditions(ctx, statements, compiler.uri_kept_rewrites)
        # (the access conditions reading %{REQUEST_URI} follow them: access_cond.kept_request_uri)
        server.settings.setdefault("uri_kept_rewrites", []).extend(compiler.uri_kept_rewrites)
        carried = carry_rewrite_headers(ctx, server, statements, compiler.carried_rewrites)
        carry_location_headers(ctx, server, statements, carried)
        carry_proxy_headers(ctx, server, statements)
        carry_refusal_headers(ctx, server, statements, compiler.refusal_sections)
        carry_dirslash_headers(ctx, server, statements)
        carry_location_error_pages(ctx, server, statements)
        statements[:0] = _document_root_index_guard(ctx, server, state, statements)
        if fallback_pass:
            statements[:0] = subrequest_pass(ctx, state.rules[0].span)
            server.settings["fallback_pass"] = True     # the layout marks the blocks falling back
    server.own_statements.extend(statements)


# the rewrite-phase statements: a `rewrite` without a flag that none of them follows searches the locations again
_REWRITE_PHASE = frozenset({"rewrite", "return", "if", "set", "break"})


def _note_internal_redirects(server: Server, statements: list[Stmt]) -> None:
    """Records on SERVER (rewrite_internal_redirects) the spans of the per-directory rewrites to a URL path:
    httpd serves their result through an internal redirect (redirect-handler, ap_internal_redirect), whose
    request shares the original's headers_in and runs the fixups again (passes.headers reports the
    RequestHeader lines that change the header a second time)."""
    for st in statements:
        if st.name == "if" and st.block:
            _note_internal_redirects(server, st.block)
        elif st.name == "rewrite" and len(st.args) >= 2 and st.args[2:] in ([], ["last"], ["break"]) \
                and st.args[1].startswith("/") and not st.args[1].startswith(("//", "/a2n_")):
            server.settings.setdefault("rewrite_internal_redirects", []).append(st.span)


def _rerun_server_rules(server: Server, state: RewriteContext, statements: list[Stmt]) -> list[Stmt]:
    """A per-directory rewrite to a URL path ends in an internal redirect (mod_rewrite's redirect-handler,
    ap_internal_redirect): httpd processes the new URL as a request of its own, the server's RewriteRules
    (translate_name) included, so a server rule may redirect or rewrite the result again. nginx's `rewrite ...
    last` in a location searches the locations again (the find-config phase) but never runs the server's
    rewrite phase. Where a server rule may match the result (the literal start of the target), the rewrite is
    marked (RERUN): the layout's last step sends its result through ngx_http_internal_redirect, which starts
    again at the server's rewrite phase (emit.rerun). A rewrite without a flag that ends the ruleset's
    statements is marked too: it searches the locations as `last` does where nothing follows it in the
    location (the layout may add a section's statements after the rules). An [END] rule's result runs
    no rule again (mod_rewrite notes END in the request's pool, which the internal redirect shares), except
    where it applied in mod_dir's index subrequest, whose pool is its own (_index_pass_end)."""
    rules = server.settings.get("rewrite_server_rules") or []
    if not rules:
        return statements
    ends = {(r.span.file, r.span.line) for r in state.rules if ends_rewriting(r) and r.span is not None}
    out = list(statements)
    ending = max((n for n, st in enumerate(out) if st.name in _REWRITE_PHASE), default=None)
    for n, st in enumerate(out):
        if st.name == "if" and st.block:
            st.block[:] = [_rerun(b, rules, False, ends) for b in st.block]
        elif st.name == "rewrite":
            out[n] = _rerun(st, rules, n == ending, ends)
    return out


def _rerun(st: Stmt, rules: list[RRule], ending: bool, ends: set) -> Stmt:
    from ..emit.rerun import RERUN
    if st.name != "rewrite" or len(st.args) < 2 or st.comment is not None or \
            st.span is not None and (st.span.file, st.span.line) in ends:
        return st
    flags = st.args[2:]
    if not (flags == ["last"] or not flags and ending):
        return st
    target = st.args[1]
    if not target.startswith("/") or target.startswith(("//", "/a2n_")):
        return st
    static = re.split(r"[$?]", target, maxsplit=1)[0]
    if all(_apart(r.pattern.lower(), static.lower()) if "NC" in r.flags else _apart(r.pattern, static)
           for r in rules):
        return st
    return Stmt("rewrite", st.args, st.span, comment=RERUN)


def _mark_moving(statements: list[Stmt], lines: set) -> None:
    """Sets rewrite_dirindex's MOVER right before each rewrite of a server rule on LINES (file, line); a rewrite
    standing alone goes inside an `if` on its own pattern first, where the rule applies only."""
    def mark(st: Stmt) -> Stmt:
        return Stmt("set", [dirindex.MOVER, "1"], st.span)

    def place(stmts: list[Stmt], top: bool) -> list[Stmt]:
        out: list[Stmt] = []
        for st in stmts:
            ours = st.name == "rewrite" and st.span is not None and (st.span.file, st.span.line) in lines
            if ours and top:
                out.append(Stmt("if", [f"($uri ~ {_quote_regex(st.args[0])})"], st.span, block=[mark(st), st]))
                continue
            if ours:
                out.append(mark(st))
            elif st.block:
                st.block[:] = place(st.block, False)
            out.append(st)
        return out
    statements[:] = place(statements, True)


def _method_pass(server: Server, method: bool = True) -> list[Stmt]:
    """Which pass through the server's rules this is (_PASS_KIND), and with METHOD %{REQUEST_METHOD} of the
    server's rules (rewrite_compile.METHOD). mod_dir looks a directory's index file up in a subrequest
    (ap_sub_req_lookup_uri, whose method is always GET), and the server's rules see that subrequest with GET
    whatever the request's own method (a POST rewritten to a directory does not meet a POST-only rule again on
    its index file), and without their [R=3xx] and [NS] rules (_skipped_on_index_pass). nginx's index redirect
    keeps the request's method ($request_method) as it runs the server's rewrite phase again, every rule
    included. Every later pass (a variable set in the first one is still set) is such a subrequest
    (_SUBREQUEST_PASS: a FallbackResource is a GET subrequest too), except an error_page pass (nginx's own GET,
    or HEAD, as httpd's ErrorDocument, which runs every rule) and a per-directory rewrite's result (emit.rerun
    marks it: httpd's internal redirect keeps the method and runs every rule)."""
    from ..emit.rerun import RERUN_PASS
    server.settings["rewrite_method_pass"] = True
    passed = "$a2n_rw_passed"
    kind = [
        Stmt("set", [_PASS_KIND, "${" + passed[1:] + "}:${" + RERUN_PASS[1:] + "}:$status"], None),
        Stmt("set", [passed, "1"], None),
        Stmt("set", [RERUN_PASS, ""], None),
    ]
    if not method:
        return kind
    return [Stmt("set", [METHOD, "$request_method"], None), *kind,
            Stmt("if", [f'({_PASS_KIND} = "{_SUBREQUEST_PASS}")'], None, block=[Stmt("set", [METHOD, "GET"], None)],
                 comment="mod_dir looks the index file up in a GET subrequest")]


def _pin_request_uri_conditions(ctx: Context, statements: list[Stmt], points: list[Stmt]) -> None:
    """A server rewrite without [PT] (POINTS) changes r->filename only: httpd's r->uri, the %{REQUEST_URI} a
    `Header ... expr=` condition reads as the answer leaves, is still the request's own path (observed with
    httpd 2.4: /private/x/a.txt rewritten to /api/ matches m#\\.txt$#; with [PT] it is the new path). nginx's
    rewrite changes $uri, which such a condition's map reads. A map's value is kept for the rest of the request
    once read: reading each such map right before the rewrite fixes it on the original path, where the rule
    applies only."""
    maps = ctx.model.request_uri_maps
    if not maps or not points:
        return
    wanted = {id(p) for p in points}
    pin = Stmt("set", ["$a2n_header_uri_pin", "".join("${" + v.lstrip("$") + "}" for v in maps)], None,
               comment="Header expr=%{REQUEST_URI}: httpd reads the request's own path after this rewrite")

    def place(stmts: list[Stmt], top: bool) -> list[Stmt]:
        out: list[Stmt] = []
        for st in stmts:
            if id(st) in wanted and top:
                # a rewrite standing alone: inside an `if` on its own pattern, which the pin goes before
                out.append(Stmt("if", [f"($uri ~ {_quote_regex(st.args[0])})"], st.span,
                                block=[Stmt(pin.name, list(pin.args), st.span, pin.comment), st]))
                continue
            if id(st) in wanted:
                out.append(Stmt(pin.name, list(pin.args), st.span, pin.comment))
            elif st.block:
                st.block[:] = place(st.block, False)
            out.append(st)
        return out
    statements[:] = place(statements, True)


def _end_guard(span) -> Stmt:
    """First among a directory's rules: where a server-context [END] applied, mod_rewrite's fixup declines
    (hook_fixup reads the END note, really_last_key, from the request's pool) and none of them runs."""
    # (in a location an `if` may only hold return, set and flagged rewrites: the same stop)
    return Stmt("if", [f"({END_MARK})"], span, block=[Stmt("rewrite", ["^", "$uri", "break"], span)],
                comment="a server-context [END] applied: httpd runs no per-directory rule")


def _directory_slash_on(ctx: Context, server: Server) -> bool:
    """No DirectorySlash Off anywhere in the server or the main server (where it is, the regions it covers
    keep their own handling and the rules run as they stand)."""
    from .access import AccessConfig
    for holder in {id(h): h for h in (server, ctx.main)}.values():
        for scope in holder.settings.get("directories", []) + holder.settings.get("files", []) + holder.scopes:
            config = scope.settings.get("access")
            if isinstance(config, AccessConfig) and config.directory_slash is not None \
                    and not config.directory_slash[0]:
                return False
    return True


def _slash_check(span) -> Stmt:
    """mod_dir's 301 for a directory requested without its slash."""
    return Stmt("if", ["(-d $request_filename)"], span,
                block=[Stmt("rewrite", ["^(.*[^/])$", "$1/", "permanent"], span)],
                comment="mod_dir: a directory without its slash is redirected before the rules' result is served")


_SLASH_FROM = "$a2n_slash_from"


def _slash_before_ending(ctx: Context, compiler: Compiler, rules: list[RRule], starts: list[int],
                         statements: list[Stmt], span) -> None:
    """mod_dir's 301 where a rule that rewrites internally ends the ruleset ([L], [END], or the last rule) among
    rules that answer (neither check before the rules holds): mod_rewrite's fixup returns OK for such a rule
    (the internal redirect waits for redirect-handler), and mod_dir's fixup, which runs after it, still sees the
    directory the request maps to (r->finfo) and the request's path (r->uri) without its slash (mod_dir.c,
    fixup_dir); a rule that answers returns its status first. Before each such rule, a copy of its tests that
    also requires the request's path, read before any rule ran, to name a directory without the slash applies
    the rule's rewrite (mod_dir's redirect carries the query the rule leaves) and answers 301 there. (A rule
    that rewrites and goes on leaves the answer to the rules after it, which nginx tests on the rewritten
    path: no 301 is added after them.)"""
    from ..diagnostics import Diagnostics
    ending = [i for i, r in enumerate(rules) if r is not None and r.substitution != "-" and not _answering(r)
              and "H" not in r.flags and ({"L", "END"} & set(r.flags) or i == len(rules) - 1)]
    if len(starts) < len(rules) or not ending:
        return
    placed = False
    saved, ctx.diags = ctx.diags, Diagnostics()     # the rule said what it had to say when it was compiled
    try:
        for i in reversed(ending):
            guards = [f'{_SLASH_FROM} ~ "[^/]$"']
            if _skipped_in_subrequest(rules[i]):
                guards.append(f'{_INDEX_PASS} = ""')
            pattern, negate = compiler.rule_regex(rules[i])
            if negate or rules[i].pattern not in _MATCH_ALL:
                # the `return` after the rewrite holds whether or not the rewrite's own pattern matches
                guards.append(f"$uri {'!~' if negate else '~'} {_quote_regex(pattern)}")
            try:
                copy = compiler.rule_statements(rules[i], guards)
            except Unsupported:
                continue
            test = copy[-1] if copy else None
            if test is None or test.name != "if" or not test.block or test.block[-1].name != "rewrite":
                continue
            rewrite = test.block[-1]
            test.block[-1] = Stmt("rewrite", rewrite.args[:2], rewrite.span)
            test.block.append(Stmt("return", ["301", f"{_SLASH_FROM}/$is_args$args"], rewrite.span,
                                   comment="mod_dir: a directory without its slash is redirected before the "
                                           "rule's result is served"))
            statements[starts[i]:starts[i]] = copy
            placed = True
    finally:
        ctx.diags = saved
    if placed:
        statements[:0] = [Stmt("set", [_SLASH_FROM, ""], span),
                          Stmt("if", ["(-d $request_filename)"], span,
                               block=[Stmt("set", [_SLASH_FROM, "$uri"], span)],
                               comment="the request's path, where it names a directory (mod_dir's test)")]


def _answers(stmts: list[Stmt]) -> bool:
    return any(st.name == "return" or st.block and _answers(st.block) for st in stmts)


def _rewrites(st: Stmt) -> bool:
    return st.name == "rewrite" or bool(st.block) and any(_rewrites(b) for b in st.block)


def _unsafe_refusal(st: Stmt) -> bool:
    """A `return 403` standing for httpd 2.4.60+'s refusal of an unsafe result (rewrite_unsafe), or an `if`
    holding only such returns (and the statements setting what they test)."""
    if st.name == "return":
        return (st.comment or "").startswith(_UNSAFE_REFUSAL)
    return not st.block or all(_unsafe_refusal(b) if b.name in ("return", "if") else b.name == "set"
                               for b in st.block)


_UNSAFE_REFUSAL = "httpd 2.4.60+ refuses"


def _slash_point(stmts: list[Stmt]) -> int:
    """Where mod_dir's slash redirect goes among a ruleset's statements that rewrite internally: before the
    first statement that rewrites (nginx's $uri is still the request's), after the refusals of unsafe results
    ahead of it (mod_rewrite's fixup refuses before mod_dir's runs)."""
    return next((n for n, st in enumerate(stmts) if _rewrites(st)), len(stmts))


def _answers_past_refusals(stmts: list[Stmt]) -> bool:
    """The statements answer otherwise than by refusing an unsafe result before their first rewrite."""
    at = _slash_point(stmts)
    return any(_answers([st]) and not _unsafe_refusal(st) for st in stmts[:at]) or _answers(stmts[at:])


def _answering(rule: RRule) -> bool:
    """The rule answers itself when it applies ([F], [G], [R], [P], a URL)."""
    return bool({"F", "G", "R", "P"} & set(rule.flags)) or \
        re.match(r"^[a-z][a-z0-9+.-]*://", rule.substitution, re.I) is not None


def _only_internal(rules: list[RRule], statements: list[Stmt]) -> bool:
    """Every rule rewrites internally or leaves the URL alone (`-`), and one rewrites (no answer of its own:
    [F], [G], [R], [P], a URL, a refusal but that of an unsafe result ahead of the first rewrite): httpd's
    fixup returns those answers itself, before mod_dir's; only an internal rewrite waits for the handler, and
    a request whose URL the rules leave alone reaches mod_dir's fixup as it is (both: 301 for a directory
    without its slash)."""
    return all(not _answering(r) for r in rules) and any(r.substitution != "-" for r in rules) and \
        not _answers_past_refusals(statements)


def _ends_always(rule: RRule) -> bool:
    """The rule applies to every URL (no condition, a pattern matching anything) and ends the ruleset."""
    return not rule.conds and rule.pattern in _MATCH_ALL and bool({"L", "END"} & set(rule.flags)) and \
        not {"C", "S", "N"} & set(rule.flags)


def _before(statements: list[Stmt], first: Stmt | None) -> list[Stmt]:
    """STATEMENTS up to FIRST (all of them for None)."""
    at = next((n for n, st in enumerate(statements) if st is first), None) if first is not None else None
    return statements if at is None else statements[:at]


def _internal_from(rules: list, starts: list[int], statements: list[Stmt]) -> int | None:
    """Where, among the location's STATEMENTS, the rules start to rewrite internally for good: the first rule
    that rewrites internally, when every rule before it answers or leaves the URL alone (`-` without [L] nor
    [END]) and every rule from it on rewrites internally, with no answer among their statements. A request
    that gets there is one no earlier rule answered, and one the ruleset sends on internally (or leaves alone):
    for a directory requested without its slash, httpd's mod_dir answers 301 either way. None otherwise
    (and 0, where the whole ruleset is internal, is the caller's)."""
    if len(starts) != len(rules) or any(r is None for r in rules):
        return None
    first = next((i for i, r in enumerate(rules) if r.substitution != "-" and not _answering(r)), None)
    if not first:
        return None
    if not all(_answering(r) or (r.substitution == "-" and not {"L", "END"} & set(r.flags)) for r in rules[:first]):
        return None
    if not _only_internal(rules[first:], statements[starts[first]:]):
        return None
    return starts[first] + _slash_point(statements[starts[first]:])
