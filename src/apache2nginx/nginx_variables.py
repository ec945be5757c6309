"""Which variables an nginx 1.22 configuration reads that nginx does not know (`unknown "x" variable`).

nginx refuses a whole configuration when a directive of the http context reads a variable that no module
provides and nothing in the configuration declares: the check runs once the configuration is read, so a
declaration anywhere in http (before or after the read, in another server) counts. This module models that
for nginx 1.22 as Debian builds it, from statements as crossplane gives them (name, arguments with quotes
removed and backslashes kept, the enclosing block names), and only reports what real nginx -t refuses:

* Only the arguments nginx compiles as scripts are read (`COMPILED`, each entry checked against nginx -t):
  `server_name`, `location`, `listen`, `geo` and `split_clients` values, `map` keys, the regex of `rewrite`
  and of `if (... ~ ...)`, `valid_referers`, `default_type`, `error_log`, `client_body_temp_path`,
  `userid_domain`, `mirror` ... are not (a `$` there is text). Any other directive is not read at all.
* The script compiler's reading: `$name` takes `[A-Za-z0-9_]`; `${name}` the same up to `}`; a `$` directly
  followed by a digit 1-9 is a regex capture, accepted wherever it stands (`$10` is `$1` then `0`); `$0` and
  `${1}` are variables named `0` and `1`, unknown; a backslash does not escape `$` (`\\$x` reads `$x`); a `$`
  with no name after it (`$$`, `$-`, a `$` at the end) is refused too ("invalid variable name"): read as the
  variable named "" (NAMELESS), which nothing declares. `log_format` has its own parser, where `$1` is a
  variable named `1`. Names are compared case-insensitively (`$REQUEST_URI`).
* Declarations: `set`, `map` (second argument), `geo` (last), `split_clients` (second), `auth_request_set`,
  `perl_set`, `js_set`, `js_var`; named captures `(?<n>...)`, `(?P<n>...)`, `(?'n'...)` of a regex anywhere.
* Built-in variables (`BUILTIN`, read off nginx 1.22.1's binary and confirmed one by one with nginx -t) and the
  prefixed families (`PREFIXES`), which accept any suffix, even an empty one (`$http_`).
* `load_module`: a module whose variables are modelled adds them; any other module may provide anything, and
  then nothing is reported.
* The stream and mail contexts have variables of their own; they are not checked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

BUILTIN = frozenset("""
    ancient_browser args binary_remote_addr body_bytes_sent bytes_sent connection connection_requests
    connection_time connections_active connections_reading connections_waiting connections_writing content_length
    content_type date_gmt date_local document_root document_uri fastcgi_path_info fastcgi_script_name gzip_ratio
    host hostname http2 https invalid_referer is_args limit_conn_status limit_rate limit_req_status modern_browser
    msec msie nginx_version pid pipe proxy_add_x_forwarded_for proxy_host proxy_port proxy_protocol_addr
    proxy_protocol_port proxy_protocol_server_addr proxy_protocol_server_port query_string realip_remote_addr
    realip_remote_port realpath_root remote_addr remote_port remote_user request request_body request_body_file
    request_completion request_filename request_id request_length request_method request_time request_uri scheme
    secure_link secure_link_expires server_addr server_name server_port server_protocol slice_range
    ssl_alpn_protocol ssl_cipher ssl_ciphers ssl_client_cert ssl_client_escaped_cert ssl_client_fingerprint
    ssl_client_i_dn ssl_client_i_dn_legacy ssl_client_raw_cert ssl_client_s_dn ssl_client_s_dn_legacy
    ssl_client_serial ssl_client_v_end ssl_client_v_remain ssl_client_v_start ssl_client_verify ssl_curve
    ssl_curves ssl_early_data ssl_protocol ssl_server_name ssl_session_id ssl_session_reused status
    tcpinfo_rcv_space tcpinfo_rtt tcpinfo_rttvar tcpinfo_snd_cwnd time_iso8601 time_local uid_got uid_reset
    uid_set upstream_addr upstream_bytes_received upstream_bytes_sent upstream_cache_status upstream_connect_time
    upstream_header_time upstream_response_length upstream_response_time upstream_status uri
""".split())

PREFIXES = ("arg_", "http_", "sent_http_", "sent_trailer_", "cookie_", "upstream_http_", "upstream_trailer_",
            "upstream_cookie_")

# Dynamic modules Debian ships whose http variables are modelled: the prefixes they add (none: they add no
# http variable). Any other module loaded turns the check off.
MODULES = {
    "ngx_http_geoip_module": ("geoip_",),
    "ngx_http_image_filter_module": (),
    "ngx_http_xslt_filter_module": (),
    "ngx_http_perl_module": (),       # perl_set declares (see DECLARES)
    "ngx_stream_module": (),
    "ngx_stream_geoip_module": (),
    "ngx_mail_module": (),
}

ALL = None
# Directive -> the indexes of the arguments nginx compiles (ALL: every one). Each entry was checked against
# nginx 1.22.1 -t (tests/test_nginx_variables.py runs them all); `if`, `map`, `geo`, `access_log`,
# `log_format` and the `proxy_redirect` family are read by `_compiled_args`.
COMPILED: dict[str, tuple[int, ...] | None] = {
    "return": ALL, "try_files": ALL, "index": ALL, "expires": ALL, "sub_filter": ALL,
    "proxy_cache_bypass": ALL, "proxy_no_cache": ALL, "fastcgi_cache_bypass": ALL, "fastcgi_no_cache": ALL,
    "uwsgi_cache_bypass": ALL, "uwsgi_no_cache": ALL, "scgi_cache_bypass": ALL, "scgi_no_cache": ALL,
    "error_page": (-1,),
    "set": (1,), "rewrite": (1,), "auth_request_set": (1,),
    "add_header": (1,), "add_trailer": (1,), "proxy_set_header": (1,), "grpc_set_header": (1,),
    "fastcgi_param": (1,), "uwsgi_param": (1,), "scgi_param": (1,),
    "root": (0,), "alias": (0,), "charset": (0,), "auth_basic": (0,), "auth_basic_user_file": (0,),
    "limit_rate": (0,), "limit_rate_after": (0,), "secure_link": (0,), "secure_link_md5": (0,),
    "proxy_pass": (0,), "fastcgi_pass": (0,), "uwsgi_pass": (0,), "scgi_pass": (0,), "grpc_pass": (0,),
    "proxy_bind": (0,), "proxy_set_body": (0,), "proxy_store": (0,), "proxy_ssl_name": (0,),
    "proxy_ssl_certificate": (0,), "proxy_ssl_certificate_key": (0,),
    "ssl_certificate": (0,), "ssl_certificate_key": (0,), "http2_push": (0,),
    "proxy_cache_key": (0,), "fastcgi_cache_key": (0,), "uwsgi_cache_key": (0,), "scgi_cache_key": (0,),
    "limit_req_zone": (0,), "limit_conn_zone": (0,), "map": (0,), "split_clients": (0,),
}
_REDIRECTS = frozenset({"proxy_redirect", "proxy_cookie_path", "proxy_cookie_domain"})
# Declaring directive -> the index of the variable it declares.
DECLARES = {"set": 0, "map": 1, "geo": -1, "split_clients": 1, "auth_request_set": 0, "perl_set": 0,
            "js_set": 0, "js_var": 0}
_FILE_TESTS = frozenset({"-f", "!-f", "-d", "!-d", "-e", "!-e", "-x", "!-x"})
_MAP_SPECIAL = frozenset({"hostnames", "volatile", "include"})
_OTHER_CONTEXTS = frozenset({"stream", "mail"})
_DECLARING_OR_CONTEXT = frozenset({*DECLARES, *_OTHER_CONTEXTS, "load_module"})

# the script compiler: a capture $1-$9 (group-less), ${name} or $name
_SCRIPT_VAR = re.compile(r"\$(?:[1-9]|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))")
# log_format's own parser: digits are a name like any other
_LOG_VAR = re.compile(r"\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))")
# a `$` no name follows (a literal dollar sign the script compiler refuses), read as the variable named ""
_NAMELESS = re.compile(r"\$(?![A-Za-z0-9_]|\{[A-Za-z0-9_]+\})")
NAMELESS = ""
_NAMED_CAPTURE = re.compile(r"\(\?(?:<|P<|')([A-Za-z_][A-Za-z0-9_]*)[>']")


def known(name: str, prefixes: tuple[str, ...] = PREFIXES) -> bool:
    """A (lowercase) name nginx provides by itself."""
    return name in BUILTIN or name.startswith(prefixes)


@dataclass
class Scan:
    """The variables one walk over a configuration's statements reads and declares.

    Feed every statement to `statement` (in any order); `unknown()` then gives the reads nginx refuses.
    `reads` keeps only the reads that are not built in, so it stays small; `where` is whatever the caller
    uses to point at the statement (a node, an output name)."""

    declared: set[str] = field(default_factory=set)
    reads: list[tuple[str, object]] = field(default_factory=list)
    prefixes: tuple[str, ...] = PREFIXES
    lenient: bool = False          # a module that may provide anything is loaded
    _seen: dict[tuple, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def statement(self, name: str, args: list[str], ctx: tuple[str, ...], where: object = None) -> None:
        if ctx and ctx[0] in _OTHER_CONTEXTS:
            return
        if name in _DECLARING_OR_CONTEXT and self._declaration(name, args, ctx):
            return
        for arg in args:
            if "$" in arg or "(?" in arg:
                break
        else:
            if "(?" in name:
                self._captures(name)
            return        # most statements: nothing read, nothing declared
        # the same statement in the same kind of block reads and declares the same (generated files repeat
        # their statements a lot)
        key = (name, ctx[-1] if ctx else "", *args)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._reads(name, args, ctx)
        for var in found:
            self.reads.append((var, where))

    def _reads(self, name: str, args: list[str], ctx: tuple[str, ...]) -> tuple[str, ...]:
        """Note the named captures of a statement; the names it reads that are not built in."""
        if "(?" in name:
            self._captures(name)
        for arg in args:
            if "(?" in arg:
                self._captures(arg)
        pattern = _LOG_VAR if name == "log_format" else _SCRIPT_VAR
        compiled = [arg for arg in _compiled_args(name, args, ctx) if "$" in arg]
        nameless = (NAMELESS,) if any(_NAMELESS.search(arg) for arg in compiled) else ()
        return nameless + tuple(var for arg in compiled
                                for var in ((braced or bare).lower() for braced, bare in pattern.findall(arg))
                                if var and var not in BUILTIN and not var.startswith(PREFIXES))

    def _declaration(self, name: str, args: list[str], ctx: tuple[str, ...]) -> bool:
        """Note what a declaring statement declares; True when the statement is done with (load_module, a
        stream or mail block)."""
        if name in _OTHER_CONTEXTS:
            return True
        if name == "load_module":
            module = args[0].rsplit("/", 1)[-1].removesuffix(".so") if args else ""
            if module in MODULES:
                self.prefixes = self.prefixes + MODULES[module]
            else:
                self.lenient = True
            return True
        at = DECLARES[name]
        if ctx[-1:] not in (("map",), ("geo",), ("split_clients",)) and len(args) > max(at, 0):
            self.declared.add(args[at].lstrip("$").lower())
        return False

    def _captures(self, regex: str) -> None:
        self.declared.update(m.lower() for m in _NAMED_CAPTURE.findall(regex))

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_seen"}     # (sent back from worker processes)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _seen={})

    def merge(self, other: "Scan") -> None:
        self.declared |= other.declared
        self.reads.extend(other.reads)
        self.prefixes = tuple(dict.fromkeys(self.prefixes + other.prefixes))
        self.lenient = self.lenient or other.lenient

    def unknown(self) -> list[tuple[str, object]]:
        """(name, where) of every read of a variable nginx does not know; empty when a module not modelled
        is loaded."""
        if self.lenient:
            return []
        return [(var, where) for var, where in self.reads
                if var not in self.declared and not var.startswith(self.prefixes)]


def _compiled_args(name: str, args: list[str], ctx: tuple[str, ...]) -> list[str]:
    """The arguments of one statement nginx compiles as scripts (crossplane's reading: `if`'s parentheses
    already removed, a block's entries given as statements named by their key)."""
    block = ctx[-1] if ctx else ""
    if block in ("map", "geo", "split_clients", "types", "upstream", "limit_except"):
        # a map entry's value is compiled (its key is not); geo and split_clients values are text
        return args[:1] if block == "map" and name not in _MAP_SPECIAL else []
    if name in COMPILED:
        which = COMPILED[name]
        if which is ALL:
            return args
        return [args[i] for i in which if -len(args) <= i < len(args)]
    if name == "if":
        if not args:
            return []
        if args[0] in _FILE_TESTS:
            return args[1:2]
        if len(args) >= 3 and args[1] in ("=", "!="):
            return [args[0], args[2]]
        return args[:1]
    if name in _REDIRECTS:
        # a regex first argument (`~`, `~*`) is not compiled, the replacement is
        return args[1:] if args and args[0].startswith("~") else args
    if name == "geo":
        return args[:1] if len(args) == 2 else []
    if name == "access_log":
        return args[:1] + [a[3:] for a in args[1:] if a.startswith("if=")]
    if name == "log_format":
        return [a for a in args[1:] if not a.startswith("escape=")]
    return []
