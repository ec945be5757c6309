"""RewriteCond comparisons as regular expressions, since nginx's `if` can only test equality and regexes.

httpd's string comparisons (`<`, `<=`, `>`, `>=`) are not strcmp: a longer string is always greater, and
strings of the same length compare byte by byte (mod_rewrite's compare_lexicography). Its integer
comparisons (`-lt`, `-le`, `-eq`, `-ne`, `-ge`, `-gt`) compare atoi() of both sides: leading white space,
an optional sign, then digits up to the first non-digit; no digits at all is 0.

Each function returns a PCRE pattern that matches exactly the test strings for which httpd's comparison
holds (byte semantics: nginx's PCRE is not in UTF mode).
"""
from __future__ import annotations

ANY = r"[\s\S]"


def _byte_class(low: int, high: int) -> str:
    """A character class for the byte values low..high inclusive ('' when empty)."""
    if low > high:
        return ""
    return f"[\\x{low:02x}-\\x{high:02x}]" if low != high else f"\\x{low:02x}"


def _literal(text: str) -> str:
    return "".join(f"\\x{b:02x}" if not chr(b).isalnum() or b > 0x7e else chr(b) for b in text.encode("latin-1"))


def _same_length(constant: str, greater: bool, first: tuple[int, int] | None = None,
                 rest: tuple[int, int] | None = None) -> list[str]:
    """Alternatives for strings of len(constant) that are strictly less (or greater) byte by byte.
    `first`/`rest` restrict the byte range of the first/other positions (digits for integers)."""
    data = constant.encode("latin-1")
    out = []
    for i, b in enumerate(data):
        lo, hi = (first if i == 0 and first else rest) or (0, 255)
        cls = _byte_class(max(lo, b + 1), hi) if greater else _byte_class(lo, min(hi, b - 1))
        if not cls:
            continue
        tail_lo, tail_hi = rest or (0, 255)
        tail = (ANY if rest is None else _byte_class(tail_lo, tail_hi))
        remaining = len(data) - i - 1
        out.append(_literal(data[:i].decode("latin-1")) + cls + (f"{tail}{{{remaining}}}" if remaining else ""))
    return out


def string_compare(op: str, constant: str) -> str:
    """Pattern for httpd's `<`, `<=`, `>`, `>=` against `constant`."""
    n = len(constant.encode("latin-1"))
    greater = op in (">", ">=")
    alts = _same_length(constant, greater)
    if greater:
        alts.append(f"{ANY}{{{n + 1},}}")
    elif n:
        alts.append(f"{ANY}{{0,{n - 1}}}")
    if op in ("<=", ">="):
        alts.append(_literal(constant))
    return "^(?:" + "|".join(alts) + ")$" if alts else "(?!)"


_DIGIT = (0x30, 0x39)
_NONZERO = (0x31, 0x39)
_LEAD = r"^[\t\n\x0b\f\r ]*+"   # possessive: white space and sign are never given back


def _magnitudes(op: str, magnitude: int) -> str:
    """Canonical digit strings (no leading zero, positive) compared with `magnitude` (op is < or >)."""
    digits = str(magnitude)
    k = len(digits)
    greater = op == ">"
    alts = _same_length(digits, greater, _NONZERO, _DIGIT) if magnitude > 0 else []
    if greater:
        alts.append(f"[1-9][0-9]{{{k},}}" if magnitude > 0 else "[1-9][0-9]*")
    elif k > 1:
        alts.append(f"[1-9][0-9]{{0,{k - 2}}}")
    return "|".join(alts)


def integer_compare(op: str, constant: str) -> str | None:
    """Pattern for httpd's -lt/-le/-eq/-ne/-ge/-gt against `constant` (None: the constant is not a plain
    integer, or the result would need a negated pattern: the caller negates `-ne`)."""
    text = constant.strip()
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if not body.isdigit():
        return None
    value = sign * int(body)
    zero = _LEAD + "[+-]?+0*+(?![0-9])"
    def positive(pattern: str) -> str:
        return f"{_LEAD}\\+?+0*+(?:{pattern})(?![0-9])"
    def negative(pattern: str) -> str:
        return f"{_LEAD}-0*+(?:{pattern})(?![0-9])"
    anything_positive = positive("[1-9][0-9]*")
    anything_negative = negative("[1-9][0-9]*")
    if op in ("-eq", "-ne"):
        if value == 0:
            return zero
        return (positive if value > 0 else negative)(str(abs(value)))
    # -le N is -lt N+1, -ge N is -gt N-1
    if op == "-le":
        op, value = "-lt", value + 1
    elif op == "-ge":
        op, value = "-gt", value - 1
    alts: list[str] = []
    if op == "-lt":
        if value > 0:
            alts += [zero, anything_negative]
            below = _magnitudes("<", value)
            if below:
                alts.append(positive(below))
        elif value == 0:
            alts.append(anything_negative)
        else:
            alts.append(negative(_magnitudes(">", -value)))
    elif op == "-gt":
        if value >= 0:
            alts.append(positive(_magnitudes(">", value)))
        else:
            alts += [zero, anything_positive]
            above = _magnitudes("<", -value)
            if above:
                alts.append(negative(above))
    else:
        return None
    return "(?:" + "|".join(alts) + ")"
