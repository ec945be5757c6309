"""The Apache syntax tree: directives and sections with their source spans.

Built by `syntax.parser` from the tree-sitter tree and rewritten by
`syntax.loader` (includes spliced in, conditionals resolved). Objects are kept
small (slots, positions as ints) because a 100k-line configuration makes
hundreds of thousands of them.
"""
from __future__ import annotations

import re
from typing import Iterator, Union

from .span import Span

_WORD = re.compile(r"\S+")


class Directive:
    """`Name arg1 arg2 ...`; `args` are unquoted values as httpd sees them."""

    __slots__ = ("name", "args", "file", "line", "column", "end_line", "end_column", "_arg_pos", "_quoted",
                 "parent", "include_chain", "_raw_text", "unresolved", "_span")

    is_section = False

    def __init__(self, name: str, args: list[str], file: str, line: int, column: int, end_line: int,
                 end_column: int, arg_pos: list[tuple[int, int, int, int]], quoted: list[bool]):
        self.name = name
        self.args = args
        self.file = file
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self._arg_pos = arg_pos      # (line, column, end_line, end_column) per argument; None: lazily
        self._quoted = quoted
        self.parent: Section | None = None
        self.include_chain: tuple[Span, ...] = ()
        # the ${NAME}s this directive holds undefined (the loader reports them, A2N022): it is not translated
        self.unresolved: tuple[str, ...] | None = None
        self._span: Span | None = None

    @property
    def arg_pos(self) -> list[tuple[int, int, int, int]]:
        if self._arg_pos is None:
            self._compute_positions()
        return self._arg_pos

    @arg_pos.setter
    def arg_pos(self, value) -> None:
        self._arg_pos = value

    @property
    def quoted(self) -> list[bool]:
        if self._quoted is None:
            self._quoted = [False] * len(self.args)
        return self._quoted

    @quoted.setter
    def quoted(self, value) -> None:
        self._quoted = value

    def _compute_positions(self) -> None:
        # Only for single-line, unquoted directives: arguments are the words after the name.
        line, col = self.line, self.column
        raw = self._raw_text
        self._arg_pos = [(line, col + m.start(), line, col + m.end()) for m in _WORD.finditer(raw)][1:]

    @property
    def key(self) -> str:
        return self.name.lower()

    @property
    def span(self) -> Span:
        """One Span per directive, shared by everything made from it (made again if the loader has moved
        the directive's columns since)."""
        span = self._span
        if span is None or span.column != self.column or span.end_column != self.end_column \
                or span.line != self.line or span.end_line != self.end_line:
            span = self._span = Span(self.file, self.line, self.column, self.end_line, self.end_column)
        return span

    @property
    def name_span(self) -> Span:
        return Span(self.file, self.line, self.column, self.line, self.column + len(self.name) +
                    (1 if self.is_section else 0))

    def arg_span(self, index: int) -> Span:
        if 0 <= index < len(self.arg_pos):
            line, col, eline, ecol = self.arg_pos[index]
            return Span(self.file, line, col, eline, ecol)
        return self.span

    def source_text(self) -> str:
        parts = [self.name] + [f'"{a}"' if (q or not a or any(c.isspace() for c in a)) else a
                               for a, q in zip(self.args, self.quoted)]
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"<Directive {self.name} {self.args!r} at {self.file}:{self.line}>"


class Section(Directive):
    """`<Name args> children </Name>`; `name` is without the angle bracket."""

    __slots__ = ("children", "close_line", "close_column")

    is_section = True

    def __init__(self, name: str, args: list[str], file: str, line: int, column: int, end_line: int,
                 end_column: int, arg_pos: list[tuple[int, int, int, int]], quoted: list[bool]):
        super().__init__(name, args, file, line, column, end_line, end_column, arg_pos, quoted)
        self.children: list[Node] = []
        self.close_line = end_line
        self.close_column = 1

    def walk(self) -> Iterator["Node"]:
        """Every node below this section, depth first, in document order (iterative)."""
        stack: list[Iterator[Node]] = [iter(self.children)]
        while stack:
            for node in stack[-1]:
                yield node
                if node.is_section:
                    stack.append(iter(node.children))  # type: ignore[union-attr]
                    break
            else:
                stack.pop()

    def source_text(self) -> str:
        return "<" + super().source_text() + ">"

    def __repr__(self) -> str:
        return f"<Section {self.name} {self.args!r} ({len(self.children)} children) at {self.file}:{self.line}>"


Node = Union[Directive, Section]


class ConfigFile:
    """The root of one parsed file: its top-level nodes."""

    __slots__ = ("path", "children", "text", "line_count", "has_variables")

    def __init__(self, path: str, children: list[Node], text: str, line_count: int):
        self.path = path
        self.children = children
        self.text = text
        self.line_count = line_count
        self.has_variables = "${" in text   # no ${VAR} in the file: the loader skips substitution
