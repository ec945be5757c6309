"""Request paths as both servers see them: the decoded path of a request target, and that path with
slashes merged and dot segments resolved (what sections are matched against)."""
from __future__ import annotations

import re
from urllib.parse import unquote


def request_path(target: str) -> str:
    """The decoded path of a request target (not urlsplit: in a request line `//x` is no authority)."""
    return unquote(target.split("?", 1)[0].split("#", 1)[0])


def normalized_path(target: str) -> str:
    """The path both servers match sections against: decoded, slashes merged, dot segments resolved.

    A final `.` or `..` leaves its directory's trailing slash (`/a/b/..` is `/a/`): httpd's
    ap_getparents and nginx's ngx_http_parse_complex_uri both keep it."""
    raw = request_path(target)
    out: list[str] = []
    segments = re.sub("/+", "/", raw).split("/")
    for segment in segments:
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    if segments[-1] in (".", ".."):
        out.append("")
    path = "/".join(out)
    return path if path.startswith("/") else "/" + path


def names_directory(target: str) -> bool:
    """Whether a request target names a directory: its path ends with a slash, or with a `.` or `..`
    segment (%-escaped or not), which httpd and nginx both resolve to a directory's path with its trailing
    slash (`/a/b/..` is `/a/`, see normalized_path). An encoded slash (`%2F`) ends no segment here: httpd
    may keep it undecoded (AllowEncodedSlashes NoDecode) or refuse it."""
    raw = target.split("?", 1)[0].split("#", 1)[0]
    return unquote(raw.rsplit("/", 1)[-1]) in ("", ".", "..")
