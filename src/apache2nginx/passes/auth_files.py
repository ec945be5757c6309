"""The group files of mod_authz_groupfile, read as httpd reads them.

httpd reads them with ap_cfg_getline (util.c): a line whose last character before the newline (and an
optional CR) is a backslash loses it and is joined with the next line, and the joined line is stripped of
leading and trailing blanks; a line then starting with `#`, or empty, is a comment.
"""

from __future__ import annotations

from ..syntax.parser import split_words


def httpd_lines(text: str) -> list[str]:
    """The lines ap_cfg_getline gives for TEXT: continuations joined (only where a newline follows the
    backslash: a last line without one keeps it), leading and trailing blanks stripped."""
    out, pending = [], None
    pieces = text.split("\n")
    for i, piece in enumerate(pieces):
        if i == len(pieces) - 1:        # after the last newline: a line only if it holds something
            if piece or pending is not None:
                out.append((pending or "") + piece)
            break
        body = piece[:-1] if piece.endswith("\r") else piece
        if body.endswith("\\"):
            pending = (pending or "") + body[:-1]
            continue
        out.append((pending or "") + piece)
        pending = None
    return [line.strip(" \t\r\n\v\f") for line in out]


def _entries(lines: list[str]) -> list[str]:
    return [line for line in lines if line and not line.startswith("#")]


def _ascii_lower(text: str) -> str:
    return "".join(c.lower() if c < "\x80" else c for c in text)


def group_members(text: str, groups) -> set[str]:
    """The members of GROUPS in a group file as mod_authz_groupfile reads it (groups_for_user): the group
    name is the text before the first `:`, the members its words (ap_getword_conf: quotes group); the
    user's groups go into an apr table, whose lookup of a `Require group` name ignores ASCII case."""
    wanted = {_ascii_lower(g) for g in groups}
    members: set[str] = set()
    for line in _entries(httpd_lines(text)):
        name, colon, rest = line.partition(":")
        if colon and _ascii_lower(name) in wanted:
            members |= {word[0] for word in split_words(rest.lstrip(":")) if word[0]}
    return members
