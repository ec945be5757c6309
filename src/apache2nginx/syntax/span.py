"""Source spans: where in which file a directive, section or argument stands."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A source range; lines and columns are 1-based, columns count characters."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    @property
    def file_line(self) -> str:
        """`file:line`, as messages name the place of another directive or section."""
        return f"{self.file}:{self.line}"

    @classmethod
    def point(cls, file: str, line: int = 1, column: int = 1) -> "Span":
        return cls(file, line, column, line, column + 1)
