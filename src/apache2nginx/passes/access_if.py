"""Access rules inside <If>/<ElseIf>/<Else> sections of a <Directory>, <Location> or <Files>.

httpd merges the expression sections last, after every <Location> (src: ap_if_walk), and only the
first member of an If/ElseIf/Else chain whose expression holds; its Require lines then replace the
region's (unless AuthMerging). So a region has one access decision per chain member plus the one
without any, and the request picks one by the expressions. Where every one of those decisions is a
constant or a Require tree of variables and expressions (access_cond), a map selects the member from
the expressions' maps and another reads the selected decision; where the members only refuse, a
rewrite-phase `return 403` for the selecting requests stands in front of the region's own rules.
Anything else refuses the region (deny all) with an error.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Scope, Stmt
from ..syntax.span import Span
from ..syntax.tree import Section
from .access_cond import DENIED, GRANTED, NEUTRAL, CondRefused, Conditions, check_expression
from .base import Context, Disposition
from .header_expr import Untranslatable


@dataclass
class IfMember:
    chain: int                 # the id of the <If> opening the chain
    index: int                 # 1-based position in the chain (the Else has no expression)
    texts: list[str]           # the chain's expressions, in order
    inner: object              # the member's AccessConfig
    span: Span | None = None
    is_else: bool = False


@dataclass
class IfChain:
    texts: list[str]
    members: dict[int, IfMember] = field(default_factory=dict)   # index -> member holding access rules
    span: Span | None = None


def track(ctx: Context, section: Section) -> None:
    """Follow the expression chains of sections that have no parent to look in (a .htaccess file, the top
    of the configuration): each member only depends on the members before it."""
    if section.parent is not None:
        return
    if section.key == "if":
        ctx.server.settings["if_chain"] = [section]
    elif section.key in ("elseif", "else") and ctx.server.settings.get("if_chain"):
        ctx.server.settings["if_chain"].append(section)


def _chain(section: Section, ctx: Context | None = None) -> tuple[list[Section], int] | None:
    """The If/ElseIf/Else chain SECTION belongs to (its siblings, or the members read so far), and its
    position in it. httpd's <ElseIf>/<Else> follows the last expression section of its block whatever stands
    between them (core keeps a block's <If> sections in a list of their own and checks only its last entry):
    a directive or another kind of section between two members leaves the chain whole."""
    parent = section.parent
    if parent is None and ctx is not None:
        members = ctx.server.settings.get("if_chain") or []
        return (list(members), len(members) - 1) if members and members[-1] is section else None
    siblings = [c for c in parent.children if c.is_section and c.key in ("if", "elseif", "else")] \
        if parent is not None else None
    if not siblings or section not in siblings:
        return None
    i = siblings.index(section)
    start = i
    while siblings[start].key in ("elseif", "else"):
        start -= 1
        if start < 0:
            return None
    end = start + 1
    while end < len(siblings) and siblings[end].key in ("elseif", "else"):
        end += 1
        if siblings[end - 1].key == "else":
            break
    if any(m.unresolved is not None for m in siblings[start:end]):
        return None     # a member holds an undefined ${VAR}: its expression cannot be read (A2N022)
    return siblings[start:end], i - start


def if_access(ctx: Context, section: Section, config, expression_text) -> Disposition | None:
    """Record the access rules of an expression section inside a region; None when it cannot be (the
    caller refuses the region)."""
    from .access import ACCESS_DIRECTIVES, AccessConfig, walk_access_into
    found = _chain(section, ctx)
    if found is None:
        return None
    members, position = found
    texts = []
    for m in members:
        if m.key == "else":
            continue
        if not m.args:
            return None
        try:
            text = expression_text(m, 0, strip_quotes=True)
            check_expression(text, ssl_compat=False)
        except Untranslatable:
            return None
        texts.append(text)
    inner = AccessConfig(walk="if")
    scope = Scope(section.name, span=section.span, kind="if", settings={"access": inner})
    keys = ACCESS_DIRECTIVES | {"requireall", "requireany", "requirenone"}
    rest = [c for c in section.children if c.key not in keys]
    walk_access_into(ctx, section, scope, keys, _member_headers(ctx, section, rest, expression_text))
    config.conditionals.append(IfMember(id(members[0]), position + 1, texts, inner, section.span,
                                        section.key == "else"))
    return Disposition.EXACT


def _member_headers(ctx: Context, section: Section, rest: list, expression_text) -> set[int]:
    """The Header lines beside a member's access rules, translated as a member holding only them is
    (headers.if_headers): httpd merges the whole member where its expression holds, its headers with its
    Require lines. The ids of the lines so translated (none when if_headers cannot take them)."""
    from .headers import if_headers
    lines = [c for c in rest if c.key == "header"]
    if not lines or if_headers(ctx, section, expression_text, lines) is None:
        return set()
    return {id(c) for c in lines}


def chains(conditionals: list[IfMember]) -> list[IfChain]:
    out: dict[int, IfChain] = {}
    for m in conditionals:
        chain = out.setdefault(m.chain, IfChain(m.texts, span=m.span))
        if len(m.texts) > len(chain.texts):
            chain.texts = m.texts      # a chain followed as it was read knows more of it at each member
        chain.members[0 if m.is_else else m.index] = m
    return list(out.values())


def enforce(chain: IfChain, configs: list, eff_base, span: Span | None, conditions: Conditions | None,
            decide, base_statements) -> list[Stmt]:
    """nginx statements for a region whose access depends on one expression chain.
    `decide(eff)`: the decision (G/D/N constant or decision map) of merged rules, or None when they are not
    a decision map; `base_statements()`: the region's statements when no member applies."""
    from .access import Refused, merge
    if conditions is None:
        raise Refused("access rules under an expression", chain.span)
    try:
        selectors = [conditions.expression(t, False, chain.span) for t in chain.texts]
    except CondRefused as exc:
        raise Refused(exc.message, exc.span)
    # one decision per outcome: member k (1..n) selected, or none of them (0: the Else, or no member)
    decisions: dict[int, str | None] = {}
    for k in range(len(selectors) + 1):
        member = chain.members.get(k)
        if member is None:
            continue
        eff = merge([c for c in configs if c is not None] + [member.inner])
        if eff.ssl_requires != eff_base.ssl_requires or eff.ssl_only != eff_base.ssl_only or \
                (eff.refuse is not None and eff.refuse[0] is not None):
            raise Refused("TLS requirements or refused rules under an expression", member.span)
        decisions[k] = decide(eff)
    base = decide(eff_base)
    select = _selector(conditions, selectors)
    outcomes = {k: decisions.get(k, base) for k in range(len(selectors) + 1)}
    if all(v is not None for v in outcomes.values()):
        value = _pick(conditions, select, outcomes)
        return conditions.refuse_unless(value, (GRANTED,), chain.span, "access under <If>")
    # the region's own rules stay; members that refuse everyone refuse in front of them
    refusing = [k for k, m in chain.members.items() if decisions[k] in (DENIED, NEUTRAL)]
    if len(refusing) != len(chain.members):
        raise Refused("access rules under an expression beside address or login rules", chain.span)
    value = conditions.pick_constant(select, {k: (DENIED if k in refusing else GRANTED)
                                             for k in range(len(selectors) + 1)})
    return conditions.refuse_unless(value, (GRANTED,), chain.span, "access under <If>") + base_statements()


def _selector(conditions: Conditions, selectors: list[str]) -> str:
    """A value naming the first expression that holds (1..n), or 0."""
    if len(selectors) == 1:
        return conditions.digit(selectors[0])
    digits = [conditions.variable(conditions.digit(v)) for v in selectors]
    source = "".join(digits)
    entries = [("~^" + "0" * k + "1", str(k + 1)) for k in range(len(digits))]
    return conditions.map(source, entries, "0")


def _pick(conditions: Conditions, select: str, outcomes: dict[int, str]) -> str:
    """The decision of the selected outcome."""
    if all(not v.startswith(("$", "@")) for v in outcomes.values()):
        return conditions.pick_constant(select, outcomes)
    # the selector's number and a colon, then the decisions that are maps (one character each): a constant
    # outcome is the entry's value, a map's is read from its position. The colon ends the number: nginx tries
    # the regexes in order, and without it the selector 10 would match member 1's key `~^1` first
    variables = [k for k in sorted(outcomes) if outcomes[k].startswith(("$", "@"))]
    source = conditions.variable(select) + ":" + "".join(conditions.variable(outcomes[k]) for k in variables)
    entries = [(f"~^{k}:" + "." * variables.index(k) + "(.)", "$1") if k in variables else (f"~^{k}:", outcomes[k])
               for k in sorted(outcomes)]
    return conditions.map(source, entries, NEUTRAL)
