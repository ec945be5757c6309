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
from itertools import chain

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


CHUNK = 1 << 20          # characters tokenised at once (the token lists stay small)


def _tokens(text: str):
    """(token, quoted) as crossplane's lexer yields them, comments left out, one list per chunk of lines."""
    size = len(text)
    pos = 0
    while pos < size:
        end = text.find("\n", pos + CHUNK)
        end = size if end < 0 else end + 1
        out: list[tuple[str, bool]] = []
        append = out.append
        for plain, dq, sq, other, bad in _TOKEN.findall(text, pos, end):
            if plain:
                append((plain, False))
            elif other:
                append((other, False))
            elif dq:
                append((dq[1:-1].replace('\\"', '"'), True))
            elif sq:
                append((sq[1:-1].replace("\\'", "'"), True))
            elif bad:
                raise _Unsure      # an unterminated quote (or one left open across chunks), a lone backslash
        if out and not out[-1][1] and out[-1][0][-1:].isspace():
            raise _Unsure          # a bare token that took in a newline may go on past the chunk
        if end == size and out and not out[-1][1] and out[-1][0] not in ("{", "}", ";") and \
                not text[-1:].isspace():
            raise _Unsure          # crossplane drops a bare token the input ends in
        yield out
        pos = end


_ANALYZED: set[tuple] = set()


def _parse(tokens, ctx: tuple, fname: str, visit=None) -> None:
    """crossplane.parser.parse's `_parse` for a text without errors, pulling from one token iterator;
    returns at the `}` closing the block (raises _Unsure on anything crossplane would report). `visit`
    is called with each statement's name, arguments and context, as crossplane's payload gives them."""
    for token, quoted in tokens:
        if token == "}" and not quoted:
            if not ctx:
                raise _Unsure      # unexpected "}"
            return
        if token == "{" and not quoted:
            raise _Unsure          # a block without a name (crossplane still counts its brace)
        stmt = {"directive": token, "line": 0, "args": []}
        args = stmt["args"]
        token, quoted = next(tokens, _END)
        while token not in ("{", ";", "}") or quoted:
            if quoted is None:
                raise _Unsure      # the input ends inside a statement
            args.append(token)
            token, quoted = next(tokens, _END)
        if quoted is None:
            raise _Unsure
        if stmt["directive"] == "if":
            if args and args[0].startswith("(") and args[-1].endswith(")"):
                args[0] = args[0][1:].lstrip()
                args[-1] = args[-1][:-1].rstrip()
                start = int(not args[0])
                end = len(args) - int(not args[-1])
                args[:] = args[start:end]
        if visit is not None:
            visit(stmt["directive"], args, ctx)
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
            _parse(tokens, enter_block_ctx(stmt, ctx), fname, visit)
        elif token == "}":
            raise _Unsure          # a statement closed by `}`: crossplane says it is not terminated by ";"
    if ctx:
        raise _Unsure              # the input ends inside a block


_END = ("", None)


def fast_clean(text: str, visit=None) -> bool | None:
    """True when crossplane would find no error in `text`; None when crossplane has to decide. `visit`
    (name, args, ctx) sees every statement of a clean text (and some of the others)."""
    if any(name in text for name in EXTERNAL_LEXERS):
        return None
    try:
        _parse(chain.from_iterable(_tokens(text)), (), "<self-check>", visit)
    except (_Unsure, RecursionError):
        return None
    return True
