"""A fast first pass of the crossplane self-check.

crossplane's lexer walks the text one character at a time through three stacked generators, which made
the self-check of a 100k-line translation cost longer than everything else in `convert` together. Here
the same tokens come from one regular expression, and the statements go through crossplane's own
analyzer (`analyze`, `enter_block_ctx`) exactly as `crossplane.parse(single=True, comments=False,
check_ctx=True, check_args=True)` sends them.

The fast pass only answers "clean": whenever it meets anything it does not model exactly (an external
lexer's directive, an unterminated quote, a trailing backslash, unbalanced braces, a truncated
statement) or any error at all, it returns None and the caller runs crossplane itself, so the error
messages (and their line numbers) are crossplane's own.
"""
from __future__ import annotations

import re

from crossplane.analyzer import analyze, enter_block_ctx
from crossplane.errors import NgxParserDirectiveError
from crossplane.lexer import EXTERNAL_LEXERS

# crossplane's lexer, token by token: whitespace and `#` comments separate tokens; a quote opens a quoted
# token only at the start of one (inside a bare token it is an ordinary character); `{`, `}` and `;` are
# tokens of their own; a backslash pairs with the next character wherever it stands; in a bare token,
# `${` takes every character up to a `}` or a blank (`{`, `;` and quotes included), and then the next
# character whatever it is, a blank included, unless it is `{`, `}` or `;` (crossplane 0.5's reading).
_DOLLAR = r"\\?\$\{(?:\\[^}]|[^\s}\\])*(?:\\?\})?(?:\\[^$]|[^{};$\\])?"
# One match per token, blanks and comments before it skipped; the groups are (bare word without `$` or
# backslash -- the common case, tried first --, "quoted", 'quoted', any other bare token or `{`/`}`/`;`,
# a character no token can start with); all empty at the end of the text.
_TOKEN = re.compile(r"""
    (?:\s+|\#[^\n]*)*
    (?:([^\s{};"'\#\\$][^\s{};\\$]*(?=[\s{};]))
     | ("(?:\\.|[^"\\])*")
     | ('(?:\\.|[^'\\])*')
     | ([{};]|(?:DOLLAR|\\.|[^\s{};"'\#\\])(?:DOLLAR|\\.|[^\s{};\\])*)
     | (.)
     | \Z)
""".replace("DOLLAR", _DOLLAR), re.X | re.S)


class _Unsure(Exception):
    """The fast pass cannot vouch for the text: crossplane decides."""


def _tokens(text: str) -> list[tuple[str, bool]]:
    """(token, quoted) as crossplane's lexer yields them, comments left out."""
    found = _TOKEN.findall(text)
    while found and found[-1] == ("", "", "", "", ""):
        found.pop()
    out: list[tuple[str, bool]] = []
    append = out.append
    for plain, dq, sq, other, bad in found:
        if plain:
            append((plain, False))
        elif other:
            append((other, False))
        elif dq:
            append((dq[1:-1].replace('\\"', '"'), True))
        elif sq:
            append((sq[1:-1].replace("\\'", "'"), True))
        else:
            raise _Unsure          # an unterminated quote, a lone backslash at the end
    if out and not out[-1][1] and out[-1][0] not in ("{", "}", ";") and \
            not (text[-1:].isspace() and not out[-1][0][-1:].isspace()):
        raise _Unsure              # crossplane drops a bare token the input ends in (or may)
    return out


_ANALYZED: set[tuple] = set()


def _parse(tokens: list[tuple[str, bool]], pos: int, ctx: tuple, fname: str) -> int:
    """crossplane.parser.parse's `_parse`, for a text without errors; returns the position after the block."""
    n = len(tokens)
    while pos < n:
        token, quoted = tokens[pos]
        pos += 1
        if token == "}" and not quoted:
            return pos
        stmt = {"directive": token, "line": 0, "args": []}
        args = stmt["args"]
        if pos >= n:
            raise _Unsure
        token, quoted = tokens[pos]
        pos += 1
        while token not in ("{", ";", "}") or quoted:
            args.append(token)
            if pos >= n:
                raise _Unsure
            token, quoted = tokens[pos]
            pos += 1
        if stmt["directive"] == "if":
            if args and args[0].startswith("(") and args[-1].endswith(")"):
                args[0] = args[0][1:].lstrip()
                args[-1] = args[-1][:-1].rstrip()
                start = int(not args[0])
                end = len(args) - int(not args[-1])
                args[:] = args[start:end]
        # analyze() only looks at the name, the context, the terminator, the number of arguments and
        # (for on/off flags) whether the only argument is on or off
        key = (stmt["directive"], ctx, token, len(args),
               len(args) == 1 and args[0].lower() in ("on", "off"))
        if key not in _ANALYZED:
            try:
                analyze(fname=fname, stmt=stmt, term=token, ctx=ctx, strict=False, check_ctx=True,
                        check_args=True)
            except NgxParserDirectiveError:
                raise _Unsure from None
            _ANALYZED.add(key)
        if token == "{" and not quoted:
            pos = _parse(tokens, pos, enter_block_ctx(stmt, ctx), fname)
        elif token == "}":
            # a statement closed by `}` is an error crossplane reports (not terminated by ";")
            raise _Unsure
    if ctx:
        raise _Unsure          # end of input inside a block
    return pos


def fast_clean(text: str) -> bool | None:
    """True when crossplane would find no error in `text`; None when crossplane has to decide."""
    if any(name in text for name in EXTERNAL_LEXERS):
        return None
    try:
        tokens = _tokens(text)
        depth = 0
        for token, quoted in tokens:
            if quoted:
                continue
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth < 0:
                    return None
        if depth:
            return None
        pos = _parse(tokens, 0, (), "<self-check>")
        if pos != len(tokens):
            return None
    except (_Unsure, RecursionError):
        return None
    return True
