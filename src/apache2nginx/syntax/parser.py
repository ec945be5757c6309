"""Reading one Apache configuration file into the syntax tree.

Owns everything between the bytes on disk and `tree.ConfigFile`: input sanity
checks (size, binary content, BOM, encoding), the tree-sitter parse with the
grammar in `grammars/tree-sitter-apache`, httpd's quoting rules for argument
values, and the structural checks httpd makes while reading (unclosed,
stray and mismatched section tags). Problems become located diagnostics;
the parser never raises on bad input.
"""
from __future__ import annotations

import os
import re
import stat
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path

from tree_sitter import Language, Parser

from .. import _grammar
from ..diagnostics import Diagnostics
from .span import Span
from .tree import ConfigFile, Directive, Node, Section

DEFAULT_MAX_INPUT = 64 * 1024 * 1024   # per file: real configurations reach tens of MB; devices are refused apart
MAX_NESTING = 100

_CONTINUATION = re.compile(r"\\\r?\n")
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13))
# One token of a single-line directive without backslashes, as the grammar splits it.
_NAME = re.compile(r'\S+')
_SECTION_NAME = re.compile(r'[^\s>]+')
_TOKEN = re.compile(r'"[^"]*"?|\'[^\']*\'?|\S+')
# Anything that keeps a line off the common path: backslashes, newlines (continuations), quotes, and
# control characters Python's str.split() treats as blanks but httpd and the grammar do not.
_NOT_PLAIN = re.compile(rb"[\\\n\"'\x00-\x08\x0e-\x1f\x7f]")
# Characters Python's str.split()/\S treat as blanks but httpd and the grammar do not.
_CONTINUATION_BYTE = re.compile(rb"[\x80-\xbf]")
_SPLIT_MISMATCH = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
# A number no httpd directive takes (and Python would not convert: its int() limit is 4,300 digits);
# anchored at the start of the run so a scan stays linear.
MAX_DIGITS = 1000
HUGE_NUMBER = re.compile(r"(?<![0-9])[0-9]{%d}" % MAX_DIGITS)


@lru_cache(maxsize=1)
def language() -> Language:
    return Language(_grammar.language())


def _parser() -> Parser:
    return Parser(language())


# ------------------------------------------------------------------ httpd quoting

def unquote(raw: str) -> tuple[str, bool, bool]:
    """httpd's ap_getword_conf + substring_conf for one argument token.

    Returns (value, quoted, terminated). Inside quotes a backslash escapes the
    quote character or a backslash; outside quotes only a doubled backslash is
    folded. An unterminated quote runs to the end of the line.
    """
    if "\\" in raw:
        raw = _CONTINUATION.sub("", raw)
    if not raw:
        return raw, False, True
    quote = raw[0]
    if quote != '"' and quote != "'":
        if "\\\\" in raw:
            return raw.replace("\\\\", "\\"), False, True
        return raw, False, True
    if "\\" not in raw and len(raw) >= 2 and raw[-1] == quote and raw.find(quote, 1) == len(raw) - 1:
        return raw[1:-1], True, True
    out: list[str] = []
    i, n = 1, len(raw)
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n and raw[i + 1] in (quote, "\\"):
            out.append(raw[i + 1])
            i += 2
            continue
        if c == quote:
            return "".join(out), True, True
        out.append(c)
        i += 1
    return "".join(out).rstrip(), True, False


MOD_REWRITE_RAW = {"rewriterule", "rewritecond"}


_REWRITE_WORD = re.compile(r'"([^"]*)("?)|\'([^\']*)(\'?)|((?:\\\s|\S)+)')


def rewrite_words(text: str) -> list[tuple[str, int, int, bool, bool]]:
    """mod_rewrite's own argument parser (parseargline) for RewriteRule and RewriteCond.

    Unlike ap_getword_conf it folds no escapes: a quote only groups, and a backslash before a blank
    keeps the blank inside the argument (both stay in the value, as PCRE reads them).
    """
    words = []
    for m in _REWRITE_WORD.finditer(text):
        if m.group(5) is not None:
            words.append((m.group(5), m.start(), m.end(), False, True))
        elif m.group(1) is not None:
            words.append((m.group(1), m.start(), m.end(), True, m.group(2) == '"'))
        else:
            words.append((m.group(3), m.start(), m.end(), True, m.group(4) == "'"))
    return words


def split_words(text: str) -> list[tuple[str, int, int, bool, bool]]:
    """httpd's ap_getword_conf applied repeatedly: (value, start, end, quoted, terminated)."""
    words = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return words
        start = i
        q = text[i]
        if q == '"' or q == "'":
            i += 1
            while i < n and text[i] != q:
                if text[i] == "\\" and i + 1 < n and text[i + 1] in (q, "\\"):
                    i += 2
                else:
                    i += 1
            if i < n:
                i += 1
        else:
            while i < n and not text[i].isspace():
                i += 1
        value, quoted, terminated = unquote(text[start:i])
        words.append((value, start, i, quoted, terminated))


# ------------------------------------------------------------------ input checks

def _locate_offset(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def decode_input(name: str, data: bytes, diags: Diagnostics, max_size: int = DEFAULT_MAX_INPUT) -> str | None:
    """Sanity checks on raw bytes; returns the text, or None when the input is refused."""
    if len(data) > max_size:
        diags.add("A2N011", f"input is {len(data):,} bytes, over the limit of {max_size:,} bytes",
                  Span.point(name))
        return None
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _locate_offset(data, nul)
        diags.add("A2N010", "input contains a NUL byte: this is not a text configuration file",
                  Span(name, line, col, line, col + 1))
        return None
    head = data[:8192]
    if head:
        control = len(head) - len(head.translate(None, _CONTROL_BYTES))
        if control * 10 > len(head):
            diags.add("A2N010", "input is mostly control bytes: this is not a text configuration file",
                      Span.point(name))
            return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        first = data.split(b"\n", 1)[0].strip()
        if first and not first.startswith(b"#"):
            diags.add("A2N007", "file starts with a UTF-8 byte-order mark; httpd 2.4 reads it as part of "
                      "the first directive name, the translator skips it", Span.point(name))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _locate_offset(data, exc.start)
        diags.add("A2N008", f"byte 0x{data[exc.start]:02x} is not UTF-8; the file was read as Latin-1",
                  Span(name, line, col, line, col + 1))
        text = data.decode("latin-1")
    if huge_number(name, text, diags) is not None:
        return None
    return text


def huge_number(name: str, text: str, diags: Diagnostics, first_line: int = 1) -> Span | None:
    """Report (A2N015) the first number of MAX_DIGITS digits or more in `text`; its span, or None."""
    m = HUGE_NUMBER.search(text)
    if m is None:
        return None
    end = m.end()
    while end < len(text) and "0" <= text[end] <= "9":
        end += 1
    line = text.count("\n", 0, m.start()) + first_line
    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    span = Span(name, line, col, line, col + end - m.start())
    diags.add("A2N015", f"a number of {end - m.start():,} digits: no httpd directive takes one this large", span)
    return span


# ------------------------------------------------------------------ tree building

class _Builder:
    """Turns the tree-sitter tree into Directive/Section objects with a stack.

    Sections are opened and closed by their tag tokens rather than by the
    tree-sitter nesting, so the same code reports httpd's own errors for
    unclosed, stray and mismatched tags however tree-sitter recovered.
    """

    def __init__(self, name: str, src: bytes, text: str, diags: Diagnostics):
        self.name = name
        self.src = src
        self.diags = diags
        self.ascii = text.isascii()
        self._lines: list[bytes] | None = None
        self.root: list[Node] = []
        self.stack: list[Section] = []
        self.clean = False   # the whole tree parsed without errors (set by build)
        self.aborted = False

    # positions ------------------------------------------------------------
    def col(self, row: int, bytecol: int) -> int:
        """The 1-based character column of a byte offset on a line. The source is UTF-8 (encoded from
        the decoded text), so characters before the offset are its bytes minus the continuation bytes
        among them, found by a binary search in the line's continuation-byte offsets (computed once a
        line: linear, however many arguments a long line has)."""
        if self.ascii:
            return bytecol + 1
        if self._lines is None:
            self._lines = self.src.split(b"\n")
            self._continuations: dict[int, list[int]] = {}
        cont = self._continuations.get(row)
        if cont is None:
            line = self._lines[row] if row < len(self._lines) else b""
            cont = self._continuations[row] = [m.start() for m in _CONTINUATION_BYTE.finditer(line)]
        return bytecol - bisect_left(cont, bytecol) + 1

    def span(self, node) -> Span:
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        return Span(self.name, r0 + 1, self.col(r0, c0), r1 + 1, self.col(r1, c1))

    def text(self, node) -> str:
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    # structure ------------------------------------------------------------
    def container(self) -> list[Node]:
        return self.stack[-1].children if self.stack else self.root

    def _fast_args(self, text: str, start: int, line: int, base: int, name: str):
        """Arguments of a one-line, backslash-free, ASCII directive or opener, split with a
        regular expression equivalent to the grammar's tokens (and httpd's ap_getword_conf)."""
        args: list[str] = []
        pos: list[tuple[int, int, int, int]] = []
        quoted: list[bool] = []
        for m in _TOKEN.finditer(text, start):
            value = m.group()
            s, e = m.span()
            if value[0] == '"' or value[0] == "'":
                value, q, terminated = unquote(value)
                if not terminated:
                    self.diags.add("A2N005", f"unterminated quote in the arguments of {name}; httpd reads the "
                                   "rest of the line as one argument", Span(self.name, line, base + s, line, base + e),
                                   directive=name)
                quoted.append(q)
            else:
                quoted.append(False)
            args.append(value)
            pos.append((line, base + s, line, base + e))
        return args, pos, quoted

    def _raw_rewrite(self, d: Directive, node) -> None:
        """Re-read a RewriteRule/RewriteCond's arguments with mod_rewrite's parser (see rewrite_words)."""
        raw = self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")
        if "\\" in raw:
            raw = _CONTINUATION.sub("", raw)
        name_len = len(raw) - len(raw[len(raw.split(None, 1)[0]):]) if raw.split() else 0
        words = rewrite_words(raw[name_len:])
        d.args = [w[0] for w in words]
        d.quoted = [w[3] for w in words]
        base = d.column + name_len
        d.arg_pos = [(d.line, base + w[1], d.line, base + w[2]) for w in words]

    def add_directive(self, node) -> None:
        stack = self.stack
        raw = self.src[node.start_byte:node.end_byte]
        if self.ascii and not _NOT_PLAIN.search(raw) and (self.clean or not node.has_error):
            # The common line: ASCII, one line, no quotes or backslashes. Both httpd parsers (and so
            # mod_rewrite's) split it on blanks; positions are computed only if a diagnostic asks.
            r0, c0 = node.start_point
            text = raw.decode("ascii")
            words = text.split()
            line = r0 + 1
            d = Directive(words[0], words[1:], self.name, line, c0 + 1, line, c0 + 1 + len(text), None, None)
            d._raw_text = text
        else:
            d = self._build_directive(node, raw)
            name = d.name
            if (name[0] == "R" or name[0] == "r") and name.lower() in MOD_REWRITE_RAW and (
                    b'"' in raw or b"'" in raw or b"\\\\" in raw or b"\\ " in raw or b"\\\t" in raw):
                # The parsers differ only on quotes, a doubled backslash and a backslash before a blank.
                self._raw_rewrite(d, node)
        if stack:
            d.parent = stack[-1]
            stack[-1].children.append(d)
        else:
            self.root.append(d)

    def _build_directive(self, node, raw: bytes) -> Directive:
        if self.ascii and (self.clean or not node.has_error) and b"\\" not in raw and b"\n" not in raw \
                and not _SPLIT_MISMATCH.search(raw):
            # One ASCII line with quotes: a regular expression equivalent to the grammar's tokens.
            r0, c0 = node.start_point
            text = raw.decode("ascii")
            name = _NAME.match(text).group()
            line, base = r0 + 1, c0 + 1
            args, pos, quoted = self._fast_args(text, len(name), line, base, name)
            return Directive(name, args, self.name, line, base, line, c0 + 1 + len(text), pos, quoted)
        children = node.children
        name_node = children[0]
        name = self.text(name_node)
        if "\\" in name:
            name = _CONTINUATION.sub("", name)
        args: list[str] = []
        pos: list[tuple[int, int, int, int]] = []
        quoted: list[bool] = []
        col = self.col
        for arg in children[1:]:
            t = arg.type
            if t == "word" or t == "quoted_string":
                raw = self.src[arg.start_byte:arg.end_byte].decode("utf-8", "replace")
                if t == "word" and "\\" not in raw:
                    value, q, terminated = raw, False, True
                else:
                    value, q, terminated = unquote(raw)
                (r0, c0), (r1, c1) = arg.start_point, arg.end_point
                args.append(value)
                quoted.append(q)
                pos.append((r0 + 1, col(r0, c0), r1 + 1, col(r1, c1)))
                if not terminated:
                    self.diags.add("A2N005", f"unterminated quote in the arguments of {name}; httpd reads "
                                   f"the rest of the line as one argument", Span(self.name, r0 + 1, col(r0, c0),
                                                                                 r1 + 1, col(r1, c1)),
                                   directive=name)
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        return Directive(name, args, self.name, r0 + 1, col(r0, c0), r1 + 1, col(r1, c1), pos, quoted)

    def open_section(self, node) -> None:
        if self.ascii and (self.clean or not node.has_error):
            raw = self.src[node.start_byte:node.end_byte]
            if raw.endswith(b">") and b"\\" not in raw and b"\n" not in raw and not _SPLIT_MISMATCH.search(raw):
                text = raw.decode("ascii")
                r0, c0 = node.start_point
                name = _SECTION_NAME.match(text, 1).group()
                inner = text[:-1]
                line, base = r0 + 1, c0 + 1
                args, pos, quoted = self._fast_args(inner, 1 + len(name), line, base, "<" + name)
                section = Section(name, args, self.name, line, base, line, base + len(text), pos, quoted)
                self._push(section)
                return
        name_node = args_node = trailing = None
        has_gt = False
        for child in node.children:
            t = child.type
            if t == "section_name":
                name_node = child
            elif t == "section_arguments":
                args_node = child
            elif t == ">" and not child.is_missing:
                has_gt = True
            elif t == "trailing":
                trailing = child
        if name_node is None:
            self.diags.add("A2N001", "section opener without a name", self.span(node))
            return
        name = self.text(name_node)[1:]
        args: list[str] = []
        pos: list[tuple[int, int, int, int]] = []
        quoted: list[bool] = []
        if args_node is not None:
            raw = self.text(args_node)
            start_row, start_byte_col = args_node.start_point
            joined = _CONTINUATION.sub("", raw) if "\\" in raw else raw
            for value, s, e, q, terminated in split_words(joined):
                # Positions are exact when the opener sits on one line, as nearly all do.
                line = start_row + 1
                c = self.col(start_row, start_byte_col) + s
                args.append(value)
                quoted.append(q)
                pos.append((line, c, line, c + (e - s)))
                if not terminated:
                    self.diags.add("A2N005", f"unterminated quote in <{name}>; httpd reads up to the last '>'",
                                   Span(self.name, line, c, line, c + (e - s)), directive="<" + name)
        sp = self.span(node)
        if not has_gt:
            self.diags.add("A2N001", f"<{name}> directive missing closing '>'", sp, directive="<" + name)
        if trailing is not None:
            ttext = self.text(trailing)
            if not ttext.startswith("#"):
                self.diags.add("A2N006", f"text after <{name} ...> is ignored by httpd: {ttext!r}",
                               self.span(trailing), directive="<" + name)
        section = Section(name, args, self.name, sp.line, sp.column, sp.end_line, sp.end_column, pos, quoted)
        self._push(section)

    def _push(self, section) -> None:
        name = section.name
        sp = section.span
        if self.stack:
            section.parent = self.stack[-1]
        self.container().append(section)
        self.stack.append(section)
        if len(self.stack) > MAX_NESTING:
            self.diags.add("A2N012", f"sections nested more than {MAX_NESTING} levels deep", sp,
                           directive="<" + name)
            self.aborted = True

    def close_section(self, tag_node, trailing=None) -> None:
        text = self.text(tag_node)
        sp = self.span(tag_node)
        if not text.endswith(">"):
            self.diags.add("A2N001", f"{text}> directive missing closing '>'", sp, directive=text)
            name = text[2:]
        else:
            name = text[2:-1]
        if not self.stack:
            self.diags.add("A2N003", f"</{name}> without matching <{name}> section", sp, directive=text)
            return
        top = self.stack[-1]
        if name.lower() != top.name.lower():
            self.diags.add("A2N004", f"expected </{top.name}> but saw </{name}>", sp, directive=text,
                           related=[top.span])
        if trailing is not None:
            ttext = self.text(trailing)
            if not ttext.startswith("#"):
                self.diags.add("A2N006", f"text after </{name}> is ignored by httpd: {ttext!r}",
                               self.span(trailing), directive=text)
        top.close_line, top.close_column = sp.line, sp.column
        top.end_line, top.end_column = sp.end_line, sp.end_column
        self.stack.pop()

    def error(self, node) -> None:
        sp = self.span(node)
        snippet = self.text(node).strip().split("\n", 1)[0][:60]
        if snippet.startswith("<"):
            msg = f"malformed section tag {snippet!r}"
        else:
            msg = f"unexpected text {snippet!r}" if snippet else "unexpected end of input"
        self.diags.add("A2N001", msg, sp)

    def build(self, root) -> None:
        self.clean = not root.has_error
        # Iterative walk over statements; descends only into containers.
        todo = [iter(root.children)]
        while todo and not self.aborted:
            for node in todo[-1]:
                t = node.type
                if t == "directive":
                    if node.has_error:
                        self._error_inside(node)
                    self.add_directive(node)
                elif t == "section":
                    todo.append(iter(node.children))
                    break
                elif t == "section_open":
                    self.open_section(node)
                elif t == "section_close":
                    if node.is_missing or node.child_count == 0 or node.children[0].is_missing:
                        continue
                    kids = node.children
                    self.close_section(kids[0], kids[1] if len(kids) > 1 else None)
                elif t == "close_tag":
                    if not node.is_missing:
                        self.close_section(node)
                elif t == "ERROR":
                    self._error_node(node)
                    todo.append(iter(node.children))
                    break
                elif t == "comment" or t == "line_continuation":
                    continue
                elif node.is_missing:
                    continue
                elif t in ("section_name", "section_arguments", ">", "trailing", "word", "quoted_string",
                           "directive_name"):
                    # loose tokens inside an ERROR: already reported by _error_node
                    continue
                if self.aborted:
                    break      # openers a recovering parse left side by side: stop at the nesting limit
            else:
                todo.pop()

    def _error_node(self, node) -> None:
        # Report once per ERROR unless its content is a tag we report precisely.
        kinds = {c.type for c in node.children}
        if kinds and kinds <= {"section_close", "close_tag", "section", "directive", "comment", "section_open",
                               "trailing"}:
            return
        self.error(node)

    def _error_inside(self, node) -> None:
        for child in node.children:
            if child.type == "ERROR" or child.is_missing:
                self.error(child)
                return

    def finish(self, end_span: Span) -> None:
        for section in reversed(self.stack):
            self.diags.add("A2N002", f"<{section.name}> was not closed", section.span, directive="<" + section.name)
        self.stack.clear()


def parse_text(name: str, text: str, diags: Diagnostics) -> ConfigFile:
    """Parse configuration text (already decoded) into a ConfigFile."""
    src = text.encode("utf-8")
    tree = _parser().parse(src)
    builder = _Builder(name, src, text, diags)
    builder.build(tree.root_node)
    if not builder.aborted:
        lines = text.count("\n") + 1
        builder.finish(Span.point(name, lines))
    return ConfigFile(name, builder.root, text, text.count("\n") + (0 if text.endswith("\n") else 1))


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def read_input(path: str | Path, max_size: int) -> bytes:
    """The bytes of a regular file of at most `max_size` bytes (one more is read, to tell it is over).

    Devices, pipes, sockets and directories are refused before anything is read (a FIFO would block
    the open, /dev/zero never ends): InputRefused says what the path is instead.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise InputRefused("A2N013", f"is {_file_kind(st.st_mode)}, not a configuration file; it is not read")
    if st.st_size > max_size:
        raise InputRefused("A2N011", f"is {st.st_size:,} bytes, over the limit of {max_size:,} bytes")
    # O_NONBLOCK: should the path have become a FIFO since the stat, the open does not wait for a writer
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputRefused("A2N013", "is not a regular file; it is not read")
        return fh.read(max_size + 1)


class InputRefused(OSError):
    """A path that is not read: not a regular file, or too large (`code`: the diagnostic for it)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.strerror = message

    def __str__(self) -> str:
        return self.strerror


def read_text(path: str | Path, max_size: int = DEFAULT_MAX_INPUT, errors: str = "replace") -> str:
    """A data file the configuration names (a map, a password file): read as an input is (regular
    files only, at most `max_size` bytes: InputRefused, an OSError, otherwise)."""
    data = read_input(path, max_size)
    if len(data) > max_size:
        raise InputRefused("A2N011", f"is over the limit of {max_size:,} bytes")
    return data.decode("utf-8", errors)


def parse_file(path: str | Path, diags: Diagnostics, max_size: int = DEFAULT_MAX_INPUT,
               display_name: str | None = None, where: Span | None = None) -> ConfigFile | None:
    """Read and parse one file; None (with a diagnostic) when it cannot be read at all. `where`: the
    line that names the file (an Include), where a refusal is reported."""
    name = display_name or str(path)
    try:
        data = read_input(path, max_size)
    except InputRefused as exc:
        diags.add(exc.code, f"{name} {exc}", where or Span.point(name))
        return None
    except IsADirectoryError:
        diags.add("A2N013", f"{name} is a directory, not a file", where or Span.point(name))
        return None
    except OSError as exc:
        diags.add("A2N013", f"cannot read {name}: {exc.strerror or exc}", where or Span.point(name))
        return None
    return parse_bytes(name, data, diags, max_size)


def parse_bytes(name: str, data: bytes, diags: Diagnostics, max_size: int = DEFAULT_MAX_INPUT) -> ConfigFile | None:
    text = decode_input(name, data, diags, max_size)
    if text is None:
        return None
    return parse_text(name, text, diags)
