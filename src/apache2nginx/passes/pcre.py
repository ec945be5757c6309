"""Whether httpd (and nginx) can compile a regular expression.

httpd compiles every regular expression of its configuration with PCRE2 when it reads it (ap_regcomp:
PCRE2_DUPNAMES, plus RegexDefaultOptions' DOTALL and DOLLAR_ENDONLY) and refuses to start on one PCRE
rejects, naming the directive. Python's `re` accepts patterns PCRE rejects and rejects some PCRE accepts,
so the check asks the PCRE2 library itself (libpcre2-8, which httpd and nginx link). nginx compiles with no
option but its `~*` caselessness, so a pattern with a duplicated group name, which httpd accepts, makes an
nginx configuration nginx refuses.

Where the library cannot be loaded nothing is refused: a guess from another engine would refuse
configurations httpd runs.

Whether a pattern matches a given text (the empty value of a missing header, above all) is asked of the
same library (regex_search): where it cannot be loaded, Python's `re` answers only for the syntax both
engines read alike, and callers refuse what depends on an answer nobody can give.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

PCRE2_CASELESS = 0x00000008
PCRE2_DOLLAR_ENDONLY = 0x00000010
PCRE2_DOTALL = 0x00000020
PCRE2_DUPNAMES = 0x00000040

# ap_regcomp's options under httpd's default RegexDefaultOptions (DOTALL DOLLAR_ENDONLY)
HTTPD_OPTIONS = PCRE2_DUPNAMES | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY


@functools.lru_cache(maxsize=1)
def _library():
    names = [ctypes.util.find_library("pcre2-8"), "libpcre2-8.so.0", "libpcre2-8.so", "libpcre2-8.0.dylib",
             "libpcre2-8.dylib"]
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            compile_ = lib.pcre2_compile_8
        except (OSError, AttributeError):
            continue
        compile_.restype = ctypes.c_void_p
        compile_.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(ctypes.c_int),
                             ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]
        lib.pcre2_code_free_8.argtypes = [ctypes.c_void_p]
        lib.pcre2_code_free_8.restype = None
        lib.pcre2_get_error_message_8.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
        lib.pcre2_get_error_message_8.restype = ctypes.c_int
        return lib
    return None


def available() -> bool:
    return _library() is not None


@functools.lru_cache(maxsize=4096)
def compile_error(pattern: str, options: int = HTTPD_OPTIONS) -> str | None:
    """PCRE2's message (with the offset) when it refuses PATTERN under OPTIONS; None when it compiles it, or
    when no PCRE2 library can be loaded. The pattern is compiled as bytes, as both servers do (no UTF mode)."""
    lib = _library()
    if lib is None:
        return None
    data = pattern.encode("utf-8", "surrogateescape")
    code, offset = ctypes.c_int(0), ctypes.c_size_t(0)
    compiled = lib.pcre2_compile_8(data, len(data), options, ctypes.byref(code), ctypes.byref(offset), None)
    if compiled:
        lib.pcre2_code_free_8(compiled)
        return None
    buffer = ctypes.create_string_buffer(256)
    lib.pcre2_get_error_message_8(code.value, buffer, len(buffer))
    return f"{buffer.value.decode('utf-8', 'replace')} at offset {offset.value}"


def httpd_refuses(pattern: str) -> str | None:
    """Why httpd would not start with PATTERN as a regular expression of its configuration (None: it compiles)."""
    return compile_error(pattern, HTTPD_OPTIONS)


def nginx_refuses(pattern: str) -> str | None:
    """Why nginx would refuse PATTERN in a location, `if` or `rewrite` that httpd accepted: PCRE2 without
    DUPNAMES refuses a group name used twice."""
    if httpd_refuses(pattern) is not None:
        return None
    return compile_error(pattern, 0)


PCRE2_ERROR_NOMATCH = -1


class MatchGaveUp(Exception):
    """PCRE2 stopped before it knew whether the pattern matches (its match or heap limit): httpd's ap_regexec
    answers "no match" then."""


def _declare_match(lib) -> None:
    if getattr(lib, "_a2n_match_declared", False):
        return
    lib.pcre2_match_data_create_from_pattern_8.restype = ctypes.c_void_p
    lib.pcre2_match_data_create_from_pattern_8.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.pcre2_match_8.restype = ctypes.c_int
    lib.pcre2_match_8.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t,
                                  ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]
    lib.pcre2_match_data_free_8.argtypes = [ctypes.c_void_p]
    lib.pcre2_match_data_free_8.restype = None
    lib._a2n_match_declared = True


def search(pattern: str, subject: str, options: int = HTTPD_OPTIONS) -> bool | None:
    """Whether PATTERN matches somewhere in SUBJECT as httpd runs it (ap_regcomp, ap_regexec: PCRE2 with its
    default match and heap limits, so a pattern that backtracks without end costs bounded time); None when no
    PCRE2 library can be loaded. ValueError when PCRE2 refuses the pattern; MatchGaveUp at a limit."""
    lib = _library()
    if lib is None:
        return None
    _declare_match(lib)
    data = pattern.encode("utf-8", "surrogateescape")
    text = subject.encode("utf-8", "surrogateescape")
    code, offset = ctypes.c_int(0), ctypes.c_size_t(0)
    compiled = lib.pcre2_compile_8(data, len(data), options, ctypes.byref(code), ctypes.byref(offset), None)
    if not compiled:
        raise ValueError(compile_error(pattern, options) or "PCRE2 refuses the pattern")
    match_data = lib.pcre2_match_data_create_from_pattern_8(compiled, None)
    try:
        if not match_data:
            raise MemoryError
        rc = lib.pcre2_match_8(compiled, text, len(text), 0, 0, match_data, None)
    finally:
        if match_data:
            lib.pcre2_match_data_free_8(match_data)
        lib.pcre2_code_free_8(compiled)
    if rc == PCRE2_ERROR_NOMATCH:
        return False
    if rc < 0:
        raise MatchGaveUp(f"PCRE2 error {rc}")
    return True


@functools.lru_cache(maxsize=4096)
def pcre_search(pattern: str, subject: str, caseless: bool = False) -> bool | None:
    """Whether PATTERN finds a match in SUBJECT as httpd's PCRE2 reads it (HTTPD_OPTIONS), asked of the PCRE2
    library both servers link: Python's `re` reads some patterns otherwise (`\\h` is unknown to it; `{,3}` is
    a quantifier to it, literal text to PCRE2 before 10.43). None when it cannot be told: no library, a
    pattern PCRE2 refuses, or a match error."""
    try:
        return search(pattern, subject, HTTPD_OPTIONS | (PCRE2_CASELESS if caseless else 0))
    except (ValueError, MatchGaveUp, MemoryError):
        return None


# escapes Python's `re` reads as PCRE2 does; any other escape letter may differ
_SHARED_ESCAPES = set("dDsSwWbBAZ")


def _python_search(pattern: str, subject: str, caseless: bool) -> bool | None:
    """Python's reading, trusted only for syntax both engines share: a `{,n}` (a quantifier to Python, text
    to PCRE2 before 10.43), an escape letter outside the shared ones or a `(?` other than a group, a
    lookaround or a name leaves it unknown (None), as does a pattern Python refuses."""
    import re
    if "{," in pattern or re.search(r"\(\?(?![:=!]|<[=!]|P?<\w+>|i\))", pattern):
        return None
    if any(c.isalnum() and c not in _SHARED_ESCAPES for c in re.findall(r"\\(.)", pattern, re.S)):
        return None
    try:
        return re.search(pattern, subject, re.IGNORECASE if caseless else 0) is not None
    except (re.error, OverflowError, RecursionError):
        return None


def regex_search(pattern: str, subject: str, caseless: bool = False) -> bool | None:
    """Whether httpd's regular expression PATTERN matches SUBJECT: PCRE2's answer (pcre_search), or, where the
    library cannot be loaded, Python's where both read the pattern alike; None when neither can tell
    (callers take the side that refuses access)."""
    if available():
        return pcre_search(pattern, subject, caseless)
    return _python_search(pattern, subject, caseless)


def empty_match(pattern: str, caseless: bool = False) -> bool | None:
    """Whether PATTERN matches the empty string (httpd matches a missing header or variable as ""; an nginx
    map never runs its regular expressions on an empty value, so the answer decides a `""` key)."""
    return regex_search(pattern, "", caseless)
