"""httpd 2.4.60+'s refusal of unsafe substitutions, which nginx does not make (CVE-2024-38474 and
CVE-2023-25690), as the installed httpd (2.4.71) shows it:

- AH10508: the `?` that splits the query off the result (the first one; the last with [QSL]) comes from an
  expansion (a back-reference $N or %N, a %{VARIABLE}, a ${map:...} value) instead of the substitution's own
  text, as a decoded `%3f` of the request does: 403, unless [UnsafeAllow3F]. Redirects too.
- AH10410/AH10411: the query a rewrite leaves (or a redirect with [NE]: httpd escapes the query of the others)
  holds a control character or a space, as decoded `%20`, `%09`... do: 403, also when the space is the
  substitution's own.

[B] escapes a back-reference's bytes (all but letters, digits and `_`; only those listed with `B=...`; only
control characters and the space with [BCTLS]; never those [BNE=...] lists; [BNP] alone escapes nothing), so
an escaped `?` or space is no reason to refuse. Variables and map values are never escaped.

`plan` says what a rule must be refused for; the compiler turns each check into an nginx test of the values
the rule expands, so that nginx answers 403 where httpd does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .rewrite_model import RRule, pieces

# what httpd refuses in a rewritten query (ap_scan_vchar_obstext: neither a visible character nor obs-text)
BAD = frozenset(range(0x00, 0x21)) | {0x7f}
QMARK = 0x3f

# %{VARIABLES} that never hold a `?`, a space or a control character (httpd refuses such a Host or method
# before mod_rewrite runs)
SAFE_VARIABLES = {"SERVER_PORT", "REQUEST_METHOD", "HTTPS", "REQUEST_SCHEME", "SERVER_ADDR", "REMOTE_ADDR",
                  "REMOTE_PORT", "SERVER_PROTOCOL", "HTTP_HOST", "SERVER_NAME", "CONN_REMOTE_ADDR", "API_VERSION",
                  "IS_SUBREQ", "TIME", "TIME_YEAR", "TIME_MON", "TIME_DAY", "TIME_HOUR", "TIME_MIN", "TIME_SEC",
                  "TIME_WDAY"}

# the absolute URIs httpd redirects to (is_absolute_uri): the rule redirects even without [R]
REDIRECT_SCHEMES = ("ajp://", "balancer://", "fcgi://", "ftp://", "gopher://", "http://", "https://", "h2://",
                    "h2c://", "ldap://", "mailto:", "news:", "nntp://", "scgi://", "ws://", "wss://")


_SPACE = "a space or control character the request holds would be in the rewritten query (AH10410)"


class Refused(Exception):
    """A combination whose refusals the translation cannot test for."""


@dataclass
class Check:
    """Refuse when the concatenation of PIECES (in nginx, their values) matches REGEX."""

    pieces: list[tuple[str, str]]
    regex: str
    why: str = "a `?` the request holds would split the query off (AH10508)"
    joined: bool = False            # REGEX spans the pieces: literal text is part of what it tests


@dataclass
class Plan:
    always: bool = False               # the substitution's own text puts a space in the query
    checks: list[Check] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.always or bool(self.checks)


def escaped(flags: dict[str, str]):
    """The bytes httpd's escape_backref escapes in a back-reference under FLAGS (a predicate), or None when
    back-references are copied as they are."""
    ctls = "BCTLS" in flags
    if "B" not in flags and not ctls:
        return None
    chosen = flags.get("B") or None
    kept = flags.get("BNE") or ""

    def esc(byte: int) -> bool:
        ch = chr(byte)
        if (byte < 0x80 and ch.isalnum()) or ch == "_":
            return False
        picked = (byte in BAD if ctls else chosen is None) or (chosen is not None and ch in chosen)
        return picked and ch not in kept
    return esc


def _holds(kind: str, value: str, byte: int, esc) -> bool:
    """Whether an expansion can put BYTE into the result."""
    if kind == "var":
        return value.upper() not in SAFE_VARIABLES
    if kind in ("rule", "cond"):
        return esc is None or not esc(byte)
    return kind == "map"


def _byte_class(chars: list[int]) -> str:
    """A PCRE character class for the bytes CHARS."""
    runs: list[list[int]] = []
    for c in sorted(chars):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return "[" + "".join(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}" for a, b in runs) + "]"


def is_redirect(rule: RRule) -> bool:
    """The rule answers with a redirect (httpd does not check the query of those for spaces)."""
    return "P" not in rule.flags and ("R" in rule.flags or rule.substitution.lower().startswith(REDIRECT_SCHEMES))


def plan(rule: RRule) -> Plan:
    """What httpd refuses this rule's result for (an empty plan: nothing)."""
    flags = rule.flags
    if rule.substitution == "-" or "F" in flags or "G" in flags:
        return Plan()
    redirect = is_redirect(rule)
    parts = pieces(rule.substitution)
    esc = escaped(flags)
    last = "QSL" in flags
    marks = [i for i, (kind, text) in enumerate(parts) if kind == "text" and "?" in text]
    split = (marks[-1] if last else marks[0]) if marks else None
    if split is None:
        before, after = parts, []
    else:
        text = parts[split][1]
        cut = text.rindex("?") if last else text.index("?")
        before = parts[:split] + ([("text", text[:cut])] if text[:cut] else [])
        after = ([("text", text[cut + 1:])] if text[cut + 1:] else []) + parts[split + 1:]
    # the expansions that may hold the splitting `?`: before the first literal one, after the last with [QSL]
    region = (after if split is not None else before) if last else before
    risky = [p for p in region if p[0] != "text" and _holds(p[0], p[1], QMARK, esc)]
    out = Plan()
    allow = "UNSAFEALLOW3F" in flags
    if risky and not allow:
        out.checks.append(Check(risky, r"\?"))
    if redirect and "NE" not in flags:
        return out      # httpd escapes the query of the redirect (with [NE] it refuses as for a rewrite)
    query = after if split is not None else []
    if any(kind == "text" and any(ord(c) in BAD for c in text) for kind, text in query):
        out.always = True
        return out
    if risky and allow:
        if last or esc is not None and any(p[0] in ("rule", "cond") for p in risky):
            raise Refused("[UnsafeAllow3F] with [QSL] or with escaped back-references before the query: where "
                          "httpd splits the query off is not tested")
        # the query may start inside an expansion: a bad byte after the first `?` of the part before it
        ahead = [p for p in region if p[0] == "text" or _holds(p[0], p[1], QMARK, esc)
                 or any(_holds(p[0], p[1], b, esc) for b in BAD)]
        out.checks.append(Check(ahead, r"\?[\s\S]*" + _byte_class(sorted(BAD)), _SPACE, joined=True))
    classes: dict[str, list[tuple[str, str]]] = {}
    for kind, text in query:
        if kind == "text":
            continue
        bad = [b for b in sorted(BAD) if _holds(kind, text, b, esc)]
        if bad:
            classes.setdefault(_byte_class(bad), []).append((kind, text))
    out.checks.extend(Check(found, regex, _SPACE) for regex, found in classes.items())
    return out
