"""The numbers nginx's configuration parser accepts.

A value the passes copy from Apache (a Timeout, a LimitRequestBody, a redirect's status) can be beyond
what nginx reads: `ngx_parse_time` and `ngx_parse_size`/`ngx_parse_offset` refuse anything past 2^63-1
milliseconds or bytes, `return` takes a status up to 999, `listen` a port up to 65535. Such a line makes
nginx refuse the whole file, so the renderer reports it (A2N015) instead of writing it.
"""
from __future__ import annotations

import re

NGX_MAX_INT = (1 << 63) - 1
_VALUE = re.compile(r"(\d+)(ms|[smhdwMykKgG])?")
# The largest factor a unit may stand for: a bare number or `s` can be seconds read as milliseconds,
# `m` minutes or mebibytes, `M` months or mebibytes (the larger of each pair is taken).
_SCALE = {None: 1000, "ms": 1, "s": 1000, "m": 1 << 20, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000,
          "M": 2_592_000_000, "y": 31_536_000_000, "k": 1024, "K": 1024, "g": 1 << 30, "G": 1 << 30}
_PORT = re.compile(r"(?:.*:)?(\d+)")
# an upstream `server` line's numbers: ngx_atoi (weight= also refuses 0) and fail_timeout=, read in seconds
_SERVER_COUNTS = ("weight=", "max_fails=", "max_conns=")
_SECONDS = {None: 1, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800, "M": 2_592_000, "y": 31_536_000}


def out_of_range(name: str, args: list[str]) -> str | None:
    """Why nginx would refuse these arguments as a number out of its range, or None."""
    if name == "return" and args and args[0].isdigit() and int(args[0]) > 999:
        return f"return {args[0]}: nginx takes a status code up to 999"
    if name == "listen" and args:
        m = _PORT.fullmatch(args[0])
        if m and not 1 <= int(m.group(1)) <= 65535:
            return f"listen {args[0]}: a port is 1 to 65535"
    if name == "server":
        if why := _server_parameters(args):
            return why
    for arg in args:
        # 2^63 / 2^30 has 10 digits: shorter numbers are in range whatever their unit
        if len(arg) > 9 and "0" <= arg[0] <= "9":
            m = _VALUE.fullmatch(arg)
            if m and int(m.group(1)) * _SCALE[m.group(2)] > NGX_MAX_INT:
                return f"{name} {arg}: beyond the largest value nginx reads (2^63-1 milliseconds or bytes)"
    return None


def _server_parameters(args: list[str]) -> str | None:
    """Why nginx would refuse an upstream server's weight=, max_fails=, max_conns= or fail_timeout=."""
    for arg in args[1:]:
        if arg.startswith(_SERVER_COUNTS):
            key, _, value = arg.partition("=")
            if not value.isdigit() or int(value) > NGX_MAX_INT or (key == "weight" and int(value) == 0):
                return f"server ... {arg}: nginx takes a whole number from {int(key == 'weight')} to 2^63-1"
        elif arg.startswith("fail_timeout="):
            m = re.fullmatch(r"(\d+)([smhdwMy])?", arg[len("fail_timeout="):])
            if not m:
                return f"server ... {arg}: nginx reads fail_timeout in whole seconds (s, m, h, d, w, M, y)"
            if int(m.group(1)) * _SECONDS[m.group(2)] > NGX_MAX_INT:
                return f"server ... {arg}: beyond the largest value nginx reads (2^63-1 seconds)"
    return None
