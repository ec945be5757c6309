"""nginx's configuration lexer, keeping every word's place in the text.

The sandbox (sandbox.py) never re-renders a configuration: it edits the
user's own text at the offsets of the words it changes, so everything it does
not touch reaches nginx byte for byte. That needs the words exactly as nginx
reads them, which this module does by following ngx_conf_read_token() (nginx
1.22, src/core/ngx_conf_file.c) step by step:

* a word starts after whitespace; `"..."` and `'...'` are quoted only when the
  quote opens the word, and a quoted word must be followed by whitespace, `;`,
  `{` or `)`;
* `#` starts a comment only where a word could start (`a#b` is one word, and
  so is `"#x"`);
* `\\` takes the next character as it is; `${` does not end a word;
* inside a word `}` is an ordinary character; only whitespace, `;` and `{` end
  an unquoted word;
* a word (or comment) whose text reaches 4096 bytes is "too long parameter";
* words are unescaped as nginx does (`\\"`, `\\'`, `\\\\`, `\\t`, `\\r`, `\\n`).

Text is handled as latin-1 so that offsets are byte offsets and any byte
round-trips. Parsing stops at the first error, as nginx's does: nothing after
it is ever read by nginx.
"""
from __future__ import annotations

from dataclasses import dataclass, field

BUFFER = 4096      # NGX_CONF_BUFFER
_SPACE = " \t\r\n"


@dataclass
class Word:
    value: str        # as nginx sees it (unescaped, without quotes)
    start: int        # offset of the word's first character (its opening quote, if quoted)
    end: int          # offset just past the word (past its closing quote)
    line: int
    quote: str = ""


@dataclass
class Stmt:
    words: list[Word]
    start: int                 # offset of the first word
    end: int                   # offset just past the `;` or `{` that ends the statement
    line: int
    block: "list[Stmt] | None" = None
    block_end: int | None = None     # offset just past the closing `}`
    parent: "Stmt | None" = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.words[0].value if self.words else ""

    @property
    def args(self) -> list[Word]:
        return self.words[1:]


@dataclass
class LexError:
    message: str
    line: int


@dataclass
class Parsed:
    stmts: list[Stmt]
    error: LexError | None = None


def parse(text: str, top_level_is_file: bool = True) -> Parsed:
    """The statements of `text` (latin-1 decoded), nested as blocks, up to the first error nginx would report."""
    events = _Tokens(text)
    root: list[Stmt] = []
    stack: list[tuple[list[Stmt], Stmt | None]] = [(root, None)]
    while True:
        kind, words, end, line = events.next()
        if kind == "error":
            return Parsed(root, LexError(words, line))     # type: ignore[arg-type]
        if kind == "eof":
            if len(stack) > 1:
                return Parsed(root, LexError('unexpected end of file, expecting "}"', line))
            return Parsed(root)
        if kind == "close":
            if len(stack) == 1:
                return Parsed(root, LexError('unexpected "}"', line))
            _, owner = stack.pop()
            owner.block_end = end     # type: ignore[union-attr]
            continue
        block, owner = stack[-1]
        stmt = Stmt(words, words[0].start, end, words[0].line, parent=owner)
        block.append(stmt)
        if kind == "block":
            stmt.block = []
            stack.append((stmt.block, stmt))


class _Tokens:
    """ngx_conf_read_token() as an iterator of (kind, words, end offset, line) events."""

    def __init__(self, text: str):
        self.s = text
        self.pos = 0
        self.line = 1

    def next(self):
        s, n = self.s, len(self.s)
        words: list[Word] = []
        need_space = sharp_comment = variable = quoted = s_quoted = d_quoted = False
        last_space = True
        start = self.pos
        start_line = self.line
        quote = ""
        while True:
            if self.pos - start >= BUFFER or self.pos >= n:
                if self.pos >= n:
                    if words or not last_space:
                        return "error", 'unexpected end of file, expecting ";" or "}"', self.pos, self.line
                    return "eof", words, self.pos, self.line
                self.line = start_line
                if d_quoted or s_quoted:
                    q = '"' if d_quoted else "'"
                    return ("error", f'too long parameter, probably missed terminating "{q}" character',
                            self.pos, start_line)
                return "error", f'too long parameter "{s[start:start + 10]}..." started', self.pos, start_line
            ch = s[self.pos]
            self.pos += 1
            if ch == "\n":
                self.line += 1
                if sharp_comment:
                    sharp_comment = False
            if sharp_comment:
                continue
            if quoted:
                quoted = False
                continue
            if need_space:
                if ch in _SPACE:
                    last_space = True
                    need_space = False
                    continue
                if ch == ";":
                    return "stmt", words, self.pos, self.line
                if ch == "{":
                    return "block", words, self.pos, self.line
                if ch == ")":
                    last_space = True
                    need_space = False
                else:
                    return "error", f'unexpected "{ch}"', self.pos, self.line
            if last_space:
                start = self.pos - 1
                start_line = self.line
                if ch in _SPACE:
                    continue
                if ch in ";{":
                    if not words:
                        return "error", f'unexpected "{ch}"', self.pos, self.line
                    return ("block" if ch == "{" else "stmt"), words, self.pos, self.line
                if ch == "}":
                    if words:
                        return "error", 'unexpected "}"', self.pos, self.line
                    return "close", words, self.pos, self.line
                if ch == "#":
                    sharp_comment = True
                    continue
                last_space = False
                quote = ""
                if ch == "\\":
                    quoted = True
                elif ch == '"':
                    start += 1
                    d_quoted = True
                    quote = '"'
                elif ch == "'":
                    start += 1
                    s_quoted = True
                    quote = "'"
                elif ch == "$":
                    variable = True
                continue
            if ch == "{" and variable:
                continue
            variable = False
            if ch == "\\":
                quoted = True
                continue
            if ch == "$":
                variable = True
                continue
            found = False
            if d_quoted:
                if ch == '"':
                    d_quoted, need_space, found = False, True, True
            elif s_quoted:
                if ch == "'":
                    s_quoted, need_space, found = False, True, True
            elif ch in _SPACE or ch in ";{":
                last_space = True
                found = True
            if found:
                raw_end = self.pos - 1
                words.append(Word(_unescape(s[start:raw_end]), start - len(quote),
                                  raw_end + (1 if quote else 0), start_line, quote))
                if ch == ";":
                    return "stmt", words, self.pos, self.line
                if ch == "{":
                    return "block", words, self.pos, self.line


_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "t": "\t", "r": "\r", "n": "\n"}


def _unescape(raw: str) -> str:
    out = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n and raw[i + 1] in _ESCAPES:
            out.append(_ESCAPES[raw[i + 1]])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_BARE_SPECIAL = set(_SPACE) | set(";{}\"'\\#()")


def quote(value: str) -> str:
    """`value` written as one nginx word that reads back as exactly `value`."""
    if value and not any(c in _BARE_SPECIAL for c in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def walk(stmts: list[Stmt]):
    """Every statement of `stmts` and of their blocks, depth-first in file order.

    Iterative: nginx -t accepts thousands of nested blocks (5000 nested locations pass), so a
    recursive walk would hit Python's recursion limit on a configuration nginx loads."""
    stack = [iter(stmts)]
    while stack:
        st = next(stack[-1], None)
        if st is None:
            stack.pop()
            continue
        yield st
        if st.block:
            stack.append(iter(st.block))
