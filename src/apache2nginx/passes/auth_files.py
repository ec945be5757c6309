"""The password and group files of mod_authn_file and mod_authz_groupfile, read as httpd reads them.

httpd reads both with ap_cfg_getline (util.c): a line whose last character before the newline (and an
optional CR) is a backslash loses it and is joined with the next line, and the joined line is stripped of
leading and trailing blanks; a line then starting with `#`, or empty, is a comment. nginx reads its
auth_basic_user_file one line at a time, as written: no joining, no stripping, `#` or CR first is a comment.
"""

from __future__ import annotations

from ..syntax.parser import split_words

# the schemes nginx checks itself (ngx_crypt) that httpd does not know (apr_password_validate hands them to
# crypt(3), which never gives back the stored text): nginx lets those users in, httpd refuses them (401)
NGINX_ONLY_SCHEMES = ("{PLAIN}", "{SSHA}")


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


def httpd_passwords(text: str) -> dict[str, str]:
    """mod_authn_file's reading: per user (the text before the first `:`), the first line's stored hash (the
    next word up to a `:`, ap_getword skipping the colons between)."""
    users: dict[str, str] = {}
    for line in _entries(httpd_lines(text)):
        name, _, rest = line.partition(":")
        users.setdefault(name, rest.lstrip(":").split(":", 1)[0])
    return users


def nginx_passwords(text: str) -> dict[str, str]:
    """nginx's reading (ngx_http_auth_basic_handler): per line as written, a line starting with `#` or CR
    skipped, the user up to the first `:`, the hash up to the next `:` or CR; the first line wins."""
    users: dict[str, str] = {}
    for line in text.split("\n"):
        if not line or line[0] in "#\r" or ":" not in line:
            continue
        name, _, rest = line.partition(":")
        users.setdefault(name, rest.split("\r", 1)[0].split(":", 1)[0])
    return users


def nginx_reads_otherwise(text: str) -> str | None:
    """Why nginx would check some login of the password file TEXT otherwise than httpd, None where it checks
    each alike: a user stored with a scheme only nginx knows, or one httpd reads with another hash or not
    at all (or the other way round: a continuation line, blanks around a line)."""
    httpd, nginx = httpd_passwords(text), nginx_passwords(text)
    plain = sorted(n for n, hashed in nginx.items() if hashed.startswith(NGINX_ONLY_SCHEMES))
    if plain:
        return f"{' or '.join(NGINX_ONLY_SCHEMES)} hashes, which nginx checks and httpd never accepts ({', '.join(plain)})"
    other = sorted(n for n in set(httpd) | set(nginx) if httpd.get(n) != nginx.get(n))
    if other:
        return f"lines httpd reads otherwise, joined at a trailing backslash or stripped of blanks ({', '.join(other)})"
    return None


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
