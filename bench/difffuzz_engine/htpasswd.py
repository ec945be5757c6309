"""Password-file lines httpd and nginx both read: `{SHA}` (base64 SHA-1) and `$apr1$` (Apache's MD5
crypt), computed here with a given salt so that a seed always gives the same file."""
from __future__ import annotations

import base64
import hashlib

_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def sha1_line(user: str, password: str) -> str:
    return f"{user}:{{SHA}}{base64.b64encode(hashlib.sha1(password.encode()).digest()).decode()}"


def apr1(password: str, salt: str) -> str:
    """Apache's `$apr1$` hash (the MD5-crypt algorithm with Apache's magic), as `htpasswd -m` writes it."""
    pw, magic, salt_b = password.encode(), b"$apr1$", salt.encode()[:8]
    ctx = pw + magic + salt_b
    alt = hashlib.md5(pw + salt_b + pw).digest()
    n = len(pw)
    while n > 0:
        ctx += alt[:min(16, n)]
        n -= 16
    i = len(pw)
    while i:
        ctx += b"\0" if i & 1 else pw[:1]
        i >>= 1
    final = hashlib.md5(ctx).digest()
    for i in range(1000):
        c = pw if i & 1 else final
        if i % 3:
            c += salt_b
        if i % 7:
            c += pw
        c += final if i & 1 else pw
        final = hashlib.md5(c).digest()

    def to64(value: int, count: int) -> str:
        out = ""
        for _ in range(count):
            out += _ITOA64[value & 0x3F]
            value >>= 6
        return out
    encoded = ""
    for a, b, c in ((0, 6, 12), (1, 7, 13), (2, 8, 14), (3, 9, 15), (4, 10, 5)):
        encoded += to64((final[a] << 16) | (final[b] << 8) | final[c], 4)
    encoded += to64(final[11], 2)
    return f"$apr1${salt_b.decode()}${encoded}"


def apr1_line(user: str, password: str, salt: str) -> str:
    return f"{user}:{apr1(password, salt)}"
