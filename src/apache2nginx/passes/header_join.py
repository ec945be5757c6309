"""mod_headers lines that act on a value the configuration gives statically: a `Header append|merge` after a
plain `Header set` of an enclosing block, a `Header append|merge` after conditional lines of its own block (or
itself conditional), and a `Header unset ... env=` after a plain `Header set` of its own block.

nginx cannot edit a header another add_header sends: it can only send lines. Where the value before the line
is known (a plain `set`, and the plain lines after it), the translation writes the value httpd ends with:
one joined line instead of two (a list header read twice is not always the same as one, and a security
header such as X-Frame-Options sent twice with two values may be read as invalid), a value that is empty
where the unset's condition holds.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model import UNSET_WHEN, Stmt
from ..syntax.tree import Directive
from .base import Context, Disposition
from .header_expr import HeaderCondition
from . import setenvif


def since_set(ctx: Context, holder: list[Stmt], name: str, table: str) -> list[Stmt] | None:
    """The add_header lines of plain (unconditional) Header lines for NAME in TABLE of HOLDER since its last
    `set` (the set among them), latest first; [] when HOLDER has no line for NAME in TABLE; None when a line
    since the set is not a plain one (a conditional line's value is not known here), when an unset ends
    them, or when no set starts them (lines of an enclosing block are in play then)."""
    from .headers import block_lines
    found = block_lines(ctx, holder, name, table)
    if found is None or found[1] == "unset":
        return None
    lines, ended_by = found
    return lines if ended_by == "set" else None if lines else []


def conditional_unset(ctx: Context, d: Directive, condition: str, name: str, env: str | None,
                      expr: str | None = None) -> bool:
    """`Header unset NAME env=[!]VAR` (or `expr=EXPR`) after a plain `Header set NAME` of the same block (and
    plain add/append/merge lines after it): httpd removes the header where the condition holds as the
    response leaves (mod_headers tests r->subprocess_env, or evaluates the expression, then), and leaves the
    set's value elsewhere. So each of those lines sends its value only where the condition fails (a map over
    the variable or the expression), and the set still replaces what an enclosing block adds: where the
    condition holds the name is gone altogether, as in httpd. True when translated so; else the caller
    refuses the line."""
    from .headers import _GENERATED, _generated, _plain, onsuccess
    table = "always" if condition == "always" else "onsuccess"
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    lines = since_set(ctx, holder, name, table)
    if not lines:
        return False
    plain = _plain(ctx)
    if expr is not None:
        if not unless_expr(ctx, d, lines, plain, expr, table):
            return False
    else:
        compiler = HeaderCondition(ctx.model)
        negate = env.startswith("!")
        source, _ = setenvif.resolve(ctx.model, ctx.server, ctx.scope, env.lstrip("!"),
                                     setenvif.input_words(ctx.options, ctx.server))
        if source is None:
            return False
        for st in lines:
            # the value stays where the unset's condition fails: VAR unset (or set, for `!VAR`)
            kept = compiler.value_when_set(source, plain.pop(id(st))[1], not negate)
            st.args[1] = kept if table == "always" else onsuccess(ctx, kept)
        # read again once every SetEnvIf line is: a later line that changes VAR is reported (A2N717)
        setenvif.EnvReader(ctx, env.lstrip("!"), d.span, d, lambda src: src)
    if name.lower() in _GENERATED:
        _generated(ctx, d, name)
    return True


def unless_expr(ctx: Context, d: Directive, lines: list[Stmt], plain: dict, expr: str, table: str,
                comment: str | None = None) -> bool:
    """`Header unset NAME expr=EXPR` over the block's earlier LINES of the same table: each sends its value
    only where EXPR is false (a map over the expression), and the request headers EXPR reads go into Vary,
    as httpd adds them. False (nothing changed) where EXPR is not translated."""
    from .header_expr import Untranslatable
    from .headers import emit_vary, onsuccess
    compiler = HeaderCondition(ctx.model)
    try:
        holds = compiler.compile(expr)
    except Untranslatable:
        return False
    for st in lines:
        kept = compiler.value_when_set(holds, plain.pop(id(st))[1], True)
        st.args[1] = kept if table == "always" else onsuccess(ctx, kept)
        if comment is not None:
            st.comment = comment
    emit_vary(ctx, compiler, d.span, table == "always")
    return True


@dataclass
class _Line:
    """A Header line as the join reads it: its statement, directive, action, header name, value and table."""
    stmt: Stmt
    directive: Directive
    action: str
    name: str
    value: str
    table: str


@dataclass
class _Joined(_Line):
    scope: object
    server: object


# the order httpd merges sections in (ap_directory_walk, ap_file_walk, ap_location_walk)
_ORDER = {"directory": 0, "files": 1, "location": 2}


def outer_join(ctx: Context, d: Directive, action: str, name: str, value: str, table: str) -> bool:
    """`Header append|merge NAME VALUE` (plain) in a section with no line of its own for NAME, where the
    server level ends with a plain `Header set NAME` (and plain lines after it): httpd joins VALUE to that
    value with ", " (merge: unless one of its comma-separated members is VALUE already; apr_table_mergen),
    so the section sends the joined value as a `set` would. True when emitted so; the check that no other
    section httpd merges before this one names the header is made once every section is read (finish)."""
    from .headers import _plain, onsuccess
    scope = ctx.scope
    if scope is None or scope.kind not in _ORDER or since_set(ctx, scope.statements, name, table) != []:
        return False
    lines = since_set(ctx, ctx.server.statements, name, table)
    if lines == [] and ctx.server is not ctx.main:
        lines = since_set(ctx, ctx.main.statements, name, table)
    if not lines or len(lines) != 1:
        return False        # several lines: httpd joins to the first of them, which one line cannot say
    old = _plain(ctx)[id(lines[0])][1]
    joined = old if action == "merge" and value in [t.strip() for t in old.split(",")] else f"{old}, {value}"
    stmt = ctx.emit("add_header", [name, joined, "always"] if table == "always" else
                    [name, onsuccess(ctx, joined)], d.span)
    stmt.resets = (name.lower(), table)
    _plain(ctx)[id(stmt)] = (stmt, joined)
    ctx.main.settings.setdefault("header_outer_joins", []).append(
        _Joined(stmt, d, action, name, value, table, scope, ctx.server))
    return True


def _names(statements: list[Stmt], name: str) -> bool:
    for st in statements:
        if (st.name == "add_header" and st.args and st.args[0].lower() == name) or \
                (st.resets and st.resets[0] == name and st.name in ("add_header", "proxy_hide_header")):
            return True
        if st.block and _names(st.block, name):
            return True
    return False


def finish(ctx: Context) -> None:
    """An outer join stands only where no other section httpd merges before (or with) the joined one names
    the header: such a section's line may come between the server's value and the append/merge. Where one
    does, the line is sent as its own header line again (A2N506), as without the join."""
    from .headers import _list_header, _plain, onsuccess
    for j in ctx.main.settings.get("header_outer_joins", []):
        key = j.name.lower()
        servers = {id(s): s for s in (j.server, ctx.main)}.values()
        scopes = {id(sc): sc for s in servers for sc in s.scopes + s.settings.get("directories", [])
                  + s.settings.get("files", [])}.values()
        if not any(sc is not j.scope and _ORDER.get(sc.kind, 0) <= _ORDER[j.scope.kind] and _names(sc.statements, key)
                   for sc in scopes):
            continue
        j.stmt.args = [j.name, j.value, "always"] if j.table == "always" else [j.name, onsuccess(ctx, j.value)]
        j.stmt.resets = None
        j.stmt.joins = j.action
        _plain(ctx)[id(j.stmt)] = (j.stmt, j.value)
        _list_header(ctx, j.directive, j.action, j.name)
        if ctx.redispose is not None:
            ctx.redispose(j.directive, Disposition.APPROXIMATE)


def mark_plain(ctx: Context) -> None:
    """Each add_header still standing for a plain Header line gets its value (Stmt.plain): where an
    append/merge line of a section meets an enclosing section's plain `set` in one nginx block (a
    <FilesMatch> inside a <Directory>), the emitter joins the two as httpd does (emit.inherit.header_order).
    A line whose value a later `Header unset ... env=` made conditional is no longer plain. A conditional
    `Header set` line (env= or expr=) gets the value it sends where its condition holds: an append/merge line
    of a section meeting it is joined to it there (emit.inherit._join). The variable of every conditional line
    still standing is recorded with that value (NginxModel.header_values): a later section's append/merge
    line meeting it is joined to it where both are sent (emit.inherit._combine)."""
    from .headers import _plain
    ungated = ctx.model.onsuccess_ungated
    for stmt, value in _plain(ctx).values():
        if stmt.name == "add_header" and len(stmt.args) > 1 and value \
                and (stmt.args[1] == value or ungated.get(stmt.args[1]) == value):
            stmt.plain = value
            if stmt.args[1] != value:
                ctx.model.header_values[stmt.args[1]] = value     # its onsuccess gate
            if stmt.joins is not None:
                # the joined line may need a map of its own, made before any output is (emit.render)
                ctx.model.conditional_header_sets = True
    for stmt, value in known_lines(ctx).values():
        table = "always" if stmt.args[-1] == "always" else "onsuccess"
        variable = _variable(ctx, stmt, table) if value and len(stmt.args) > 1 else None
        if variable is None:
            continue
        ctx.model.header_values[variable] = ctx.model.header_values[stmt.args[1]] = value
        if stmt.resets and stmt.conditional:
            stmt.plain = value
        if stmt.joins is not None:
            ctx.model.conditional_header_sets = True


# ---------------------------------------------------------------- append/merge among conditional lines
#
# httpd runs a block's Header lines in order on one table, each where its condition holds: `append` joins its
# value to the first header of the name with ", " (apr_table_mergen), `merge` too unless that value's
# comma-separated members hold it already, and either adds a header of its own where there is none (observed
# with httpd 2.4: `Header set X a expr=...` then `Header append X b expr=...` sends one line "a, b" where both
# hold). nginx sends each add_header as a line of its own. Where every line before the append is a line of its
# block whose value is known (plain, or a conditional line: its value or nothing), the line that is first where
# the append's condition holds takes the joined value, and the append's own line is sent only where none is.
# The maps read the lines' variables, which are final only once every SetEnvIf line is read: so they are built
# at the end (settle_joins).

def known_lines(ctx: Context) -> dict[int, tuple[Stmt, str]]:
    """The add_header statements of conditional Header set/add/append/merge lines (env= or expr=), with the
    value each sends where its condition holds (its argument is a variable that is that value or empty)."""
    return ctx.main.settings.setdefault("conditional_headers", {})


def _variable(ctx: Context, st: Stmt, table: str) -> str | None:
    """The variable a conditional line's add_header sends (for the onsuccess table, the one its gate sends)."""
    value = st.args[1] if table == "always" else ctx.model.onsuccess_ungated.get(st.args[1])
    return value if isinstance(value, str) and value.startswith("$") else None


def _chain(ctx: Context, holder: list[Stmt], upto: Stmt, key: tuple[str, str]):
    """The add_header lines for KEY (lower-cased name, table) of HOLDER before UPTO since the last plain set
    or unset, first first, each as (statement, value where sent, variable that is the value or empty; None for
    a plain line, always sent), and whether a plain set or unset starts them (else what came before the block
    is in play). None where a line is not known so, or one comes before a conditional set (where the set's
    condition holds the emitter takes it away, which the maps here could not read)."""
    from .headers import _plain
    plain, known = _plain(ctx), known_lines(ctx)
    lines: list[tuple[Stmt, str, str | None]] = []
    conditional_set = False
    for st in reversed(holder[:holder.index(upto)]):
        if st.name == "add_header" and len(st.args) > 1 \
                and (st.args[0].lower(), "always" if st.args[-1] == "always" else "onsuccess") == key:
            if conditional_set:
                return None
            if id(st) in plain and plain[id(st)][0] is st:
                lines.append((st, plain[id(st)][1], None))
            elif id(st) in known and known[id(st)][0] is st and _variable(ctx, st, key[1]) is not None:
                lines.append((st, known[id(st)][1], _variable(ctx, st, key[1])))
            else:
                return None
            if st.resets and not st.conditional:
                return lines[::-1], True
            conditional_set = conditional_set or bool(st.resets)
        elif st.resets == key and st.name != UNSET_WHEN:
            return lines[::-1], True
        elif st.resets == key:
            return None
    return lines[::-1], False


@dataclass
class _Pending(_Line):
    holder: list


def conditional_join(ctx: Context, d: Directive, stmt: Stmt, action: str, name: str, value: str,
                     table: str) -> bool:
    """`Header append|merge NAME VALUE` (STMT, just emitted) where the block's lines for NAME before it are
    known and one of them, or the line itself, is conditional: the join is made once every condition is final
    (settle_joins). True when it will be; False (the line stays one of its own) where a line is not known,
    there is none, or a line of an enclosing block (or the main server's, for a virtual host) may come first."""
    from .headers import _set_before
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    if stmt not in holder:
        return False
    found = _chain(ctx, holder, stmt, (name.lower(), table))
    if found is None or not found[0]:
        return False
    lines, complete = found
    if all(var is None for _, _, var in lines) and id(stmt) not in known_lines(ctx):
        return False        # plain lines only: headers._join's
    if not complete and _set_before(ctx, name.lower()):
        return False
    ctx.main.settings.setdefault("header_conditional_joins", []).append(
        _Pending(stmt, d, action, name, value, table, holder))
    return True


def settle_joins(ctx: Context) -> None:
    """Build the maps of each conditional join (conditional_join), in the order the lines were read. A join
    whose lines changed since (a SetEnvIf read later took a line away) leaves the line one of its own (A2N506)."""
    from ..emit.render import quote
    from .headers import _list_header, _plain, onsuccess
    plain, known = _plain(ctx), known_lines(ctx)
    for p in ctx.main.settings.get("header_conditional_joins", []):
        found = _chain(ctx, p.holder, p.stmt, (p.name.lower(), p.table)) if p.stmt in p.holder else None
        own = plain.get(id(p.stmt)) or known.get(id(p.stmt))
        if not found or not found[0] or own is None or own[0] is not p.stmt:
            if p.stmt in p.holder:
                _list_header(ctx, p.directive, p.action, p.name)
                if ctx.redispose is not None:
                    ctx.redispose(p.directive, Disposition.APPROXIMATE)
            continue
        lines = found[0]
        # a plain line is always there: the lines after it never take the join
        cut = next((i for i, (_, _, var) in enumerate(lines) if var is None), len(lines) - 1)
        lines = lines[:cut + 1]
        own_var = None if id(p.stmt) in plain else _variable(ctx, p.stmt, p.table)
        digits = [ctx.model.shared_map("a2n_hdr_", var, [('""', "0")], "1") if var else "1"
                  for _, _, var in lines + [(p.stmt, p.value, own_var)]]
        source = ":".join(digits)
        for i, (st, old, var) in enumerate(lines):
            if p.action == "merge" and p.value in [t.strip() for t in old.split(",")]:
                continue
            where = "~^" + "0:" * i + "1:" + "[01]:" * (len(lines) - 1 - i) + "1$"
            variable = ctx.model.shared_map("a2n_hdr_", source, [(where, f"{old}, {p.value}")], var or quote(old))
            st.args[1] = variable if p.table == "always" else onsuccess(ctx, variable)
            st.comment = f"joined with a later Header {p.action} where its condition holds"
            plain.pop(id(st), None)
            known.pop(id(st), None)
        plain.pop(id(p.stmt), None)
        known.pop(id(p.stmt), None)
        if lines[-1][2] is None:
            p.holder.remove(p.stmt)     # a plain line before it always takes the value
            continue
        # its own line only where no line before it is there
        variable = ctx.model.shared_map("a2n_hdr_", source, [("0:" * len(lines) + "1", p.value)], '""')
        p.stmt.args[1] = variable if p.table == "always" else onsuccess(ctx, variable)
        p.stmt.joins = None
