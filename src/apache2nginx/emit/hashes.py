"""Sizes of nginx's server-name hash for a translation with many host names.

nginx puts the exact names of the servers on one address into a hash whose buckets hold
`server_names_hash_bucket_size` bytes (64 by default) and whose size may not exceed
`server_names_hash_max_size` (512). When no size up to the maximum fits every bucket, `nginx -t` warns
("could not build optimal server_names_hash") and every lookup walks longer chains; a name longer than a
bucket is an error. This module builds the hash as nginx 1.22's ngx_hash_init does and returns the two
settings when the defaults do not fit — and nothing otherwise, so a small site keeps nginx's defaults.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..model import NginxModel, Stmt, all_nested, every_statement

POINTER = 8                  # sizeof(void *) on the 64-bit platforms nginx is deployed on
DEFAULT_BUCKET = 64          # the cache line size nginx takes as the default bucket size
DEFAULT_MAX = 512
_MASK = (1 << 64) - 1


@lru_cache(maxsize=1 << 16)
def _key(name: str) -> int:
    """ngx_hash_key_lc: key * 31 + c over the lower-cased bytes, in a 64-bit word."""
    key = 0
    for c in name.lower().encode("utf-8", "surrogateescape"):
        key = (key * 31 + c) & _MASK
    return key


def _element(name: str) -> int:
    """NGX_HASH_ELT_SIZE: a value pointer, a two-byte length and the name, aligned to a pointer."""
    size = POINTER + 2 + len(name.encode("utf-8", "surrogateescape"))
    return (size + POINTER - 1) // POINTER * POINTER


def fits(names: list[str], bucket_size: int, max_size: int, budget: int = 150_000) -> bool:
    """Whether ngx_hash_init finds a size for `names` within these settings (no warning, no error).
    `budget` bounds the work (element placements) spent finding out; past it the answer is False, so a
    caller trying larger settings ends with ones that fit, in bounded time."""
    limit = bucket_size - POINTER
    elements = [(_key(n), _element(n)) for n in names]
    if any(size > limit for _, size in elements):
        return False
    if sum(size for _, size in elements) > max_size * limit:
        return False                  # more bytes than every bucket of the largest size holds
    start = max(1, len(elements) // max(1, limit // (2 * POINTER)))
    if max_size > 10000 and elements and max_size // len(elements) < 100:
        start = max_size - 1000
    for size in range(start, max_size + 1):
        used = [0] * size
        for placed, (key, length) in enumerate(elements):
            slot = key % size
            used[slot] += length
            if used[slot] > limit:
                budget -= placed + 1
                break
        else:
            return True
        if budget <= 0:
            return False
    return False


def _groups(model: NginxModel) -> list[list[str]]:
    """The exact names of the servers on each address (wildcard and regex names go to other hashes); nginx
    builds no hash for an address with one server."""
    by_socket: dict[str, dict[str, None]] = {}
    servers: dict[str, int] = {}
    for server in model.servers:
        exact = [n for n in server.names if n and not n.startswith(("~", "*", ".")) and not n.endswith("*")]
        for socket in {listen.socket.nginx() for listen in server.listens}:
            by_socket.setdefault(socket, {}).update(dict.fromkeys(n.lower() for n in exact))
            servers[socket] = servers.get(socket, 0) + 1
    return [list(names) for socket, names in by_socket.items() if names and servers[socket] > 1]


def server_names_hash(model: NginxModel) -> list[Stmt]:
    """`server_names_hash_bucket_size` / `server_names_hash_max_size` for http, when nginx's defaults do
    not hold this translation's names."""
    groups = _groups(model)
    if all(fits(names, DEFAULT_BUCKET, DEFAULT_MAX) for names in groups):
        return []
    longest = max(_element(n) for names in groups for n in names)
    bucket = DEFAULT_BUCKET
    while bucket < longest + 2 * POINTER or bucket < 128:
        bucket *= 2
    size = DEFAULT_MAX
    while not all(fits(names, bucket, size) for names in groups):
        if size >= 1 << 16:
            size, bucket = DEFAULT_MAX, bucket * 2    # fuller buckets rather than an ever larger table
            continue
        size *= 2
    comment = "sized for the virtual hosts' names: nginx's defaults would not hold them"
    return [Stmt("server_names_hash_bucket_size", [str(bucket)], None, comment=comment),
            Stmt("server_names_hash_max_size", [str(size)], None, comment=comment)]


# nginx's variables share one hash: its own hundred-odd and every name a configuration defines (a map's
# variable, a `set` target, a regex's named capture). Past some forty names as long as a2n_onsuccess_12 its
# defaults (bucket 64, max 1024) hold one name a bucket and `nginx -t` warns ("could not build optimal
# variables_hash"). Sized generously rather than built: nginx's own names vary with the modules it has.
_OWN_VARIABLES = 40
_NGINX_VARIABLES = 150
_NAMED_CAPTURE = re.compile(r"\(\?P?<([A-Za-z_]\w*)>")


def own_variables(model: NginxModel) -> set[str]:
    """The variable names the translation defines: maps' variables, `set` targets and named captures of the
    regexes of its locations and statements."""
    names = {m.variable.lstrip("$") for m in model.maps}
    for st in every_statement(model.servers):
        if st.name == "set" and st.args:
            names.add(st.args[0].lstrip("$"))
        for arg in st.args:
            if "(?" in arg:
                names.update(_NAMED_CAPTURE.findall(arg))
    for server in model.servers:
        for loc in all_nested(server.locations):
            if loc.modifier in ("~", "~*") and "(?" in loc.path:
                names.update(_NAMED_CAPTURE.findall(loc.path))
    return names


def variables_hash(model: NginxModel) -> list[Stmt]:
    """`variables_hash_bucket_size` / `variables_hash_max_size` for http, when the translation defines more
    variables than nginx's defaults hold without a warning."""
    count = len(own_variables(model))
    if count <= _OWN_VARIABLES:
        return []
    size = 1024
    while size < 8 * (count + _NGINX_VARIABLES):
        size *= 2
    comment = "sized for the translation's variables: nginx's defaults would not hold them"
    return [Stmt("variables_hash_bucket_size", ["128"], None, comment=comment),
            Stmt("variables_hash_max_size", [str(size)], None, comment=comment)]
