"""The numbers of mod_proxy's worker parameters, read as httpd reads them, written as nginx reads them.

httpd reads `retry=`, `timeout=` and `ttl=` with atoi: whole seconds, whatever follows the digits
(`retry=1500ms` is 1500 seconds, `timeout=2mi` two), a number past the C int wrapping around. It reads
`connectiontimeout=` (and ProxyTimeout's neighbours ping= and acquire=) with ap_timeout_parameter_parse:
a 64-bit number with a unit (ms, s, mi[n], h, seconds when none), refused past 2^63-1 microseconds.
`loadfactor=` is atof, kept in hundredths (1..100, so 100..10000). nginx wants durations as `Ns` or
`Nms` (`fail_timeout=` in seconds only) and whole weights. Every function here answers None where httpd
refuses the value (it would not start): the caller reports that.
"""
from __future__ import annotations

import re

_INT64 = (1 << 63) - 1
_STRTOL = re.compile(r"[ \t\n\v\f\r]*([+-]?)(\d*)")
_FLOAT = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# ap_timeout_parameter_parse looks at the first letters after the number only (`5sec` is 5s, `3min` 3mi)
_UNIT_US = (("ms", 1000), ("mi", 60_000_000), ("s", 1_000_000), ("h", 3_600_000_000))


def c_atoi(value: str) -> int:
    """glibc's atoi: (int) strtol(value, NULL, 10), strtol saturating at the 64-bit limits."""
    m = _STRTOL.match(value)
    number = int(m.group(2)) if m.group(2) else 0
    number = -number if m.group(1) == "-" else number
    number = max(-(1 << 63), min(_INT64, number))
    number &= 0xFFFFFFFF
    return number - (1 << 32) if number >= 1 << 31 else number


def atoi_seconds(value: str, least: int) -> int | None:
    """retry= (least 0), timeout= and ttl= (least 1): whole seconds, None where httpd refuses the value."""
    seconds = c_atoi(value)
    return seconds if seconds >= least else None


def timeout_ms(value: str) -> int | None:
    """connectiontimeout=: ap_timeout_parameter_parse with seconds by default, then `at least one
    millisecond`; the value in milliseconds (httpd keeps microseconds: a whole number of milliseconds
    always), None where httpd refuses it."""
    m = _STRTOL.match(value)
    digits, rest = m.group(2), value[m.end():]
    number = int(digits) if digits else 0
    if m.group(1) == "-" and number:
        return None                       # httpd: "has wrong format"
    if number > _INT64:
        return None                       # strtoi64 overflows (ERANGE)
    factor = 1_000_000 if not rest else next((f for unit, f in _UNIT_US if rest.startswith(unit)), None)
    if factor is None or number * factor > _INT64:
        return None
    micro = number * factor
    return micro // 1000 if micro >= 1000 else None


def loadfactor(value: str) -> int | None:
    """The member's weight as httpd keeps it, in hundredths (atof(value) * 100 truncated), None outside
    1..100 (httpd refuses the member)."""
    m = _FLOAT.match(value)
    try:
        hundredths = int(float(m.group(0)) * 100.0) if m else 0
    except (OverflowError, ValueError):
        return None
    return hundredths if 100 <= hundredths <= 10000 else None


def nginx_duration(ms: int) -> str:
    """Milliseconds as nginx writes a duration: whole seconds as `Ns`, the rest as `Nms`."""
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"
