"""What a diagnostic code can cause: the registry's declaration of the differences between httpd and
nginx that each code accounts for.

A diagnostic is a claim of cause. `verify` puts a difference between what httpd and nginx answered down
to a diagnostic only when the diagnostic's region covers the request *and* its code declares that kind of
difference under that condition. A declaration is a list of `Effect`s:

- `field`: what was compared, as `verify` names it: `status`, `location`, `body`, `connection`,
  `header NAME` (a response header; `header` alone is any), `backend` (which backend answered),
  `backend method`, `backend path`, `backend query`, `backend header NAME` (`backend header` any), or
  `directive`: whatever the directive the diagnostic names can change (see `MODULE_FIELDS`), for
  the generic codes that report a directive left out (A2N100, A2N101, ...).
- `change`: `missing` (httpd sent or did it, nginx did not), `added` (nginx only), `changed` (both,
  with other values) or `any`. For fields that always exist (status, backend path) only `changed`
  and `any` apply.
- `when`: conditions that must all hold of the request and the two answers (see `CONDITIONS`).

A code that declares nothing explains nothing: loading decisions, notes and log-only approximations.
Some differences are never explained, whatever is declared: `verify` reports them as
WIDENED ACCESS or LOST SECURITY HEADER (see `verify/compare.py`).
"""
from __future__ import annotations

from dataclasses import dataclass

CHANGES = ("missing", "added", "changed", "any")

# condition -> what it means; evaluated by verify on the request and both answers
CONDITIONS = {
    "proxied": "httpd or nginx answered from a backend",
    "not-proxied": "neither server answered from a backend",
    "error-status": "httpd or nginx answered with a 4xx or 5xx status",
    "server-error": "httpd or nginx answered with a 5xx status",
    "success": "httpd answered with a 2xx status",
    "redirect": "httpd or nginx answered with a 3xx status",
    "status-405": "httpd or nginx answered 405 (method not allowed)",
    "unsafe-method": "the request's method is neither GET nor HEAD",
    "query": "the request has a query string",
    "encoded-path": "the request's path holds a %-escape",
    "unnormalised-path": "the request's path holds a doubled slash or a dot segment",
    "host-port": "the request's Host header names a port",
    "https": "the request came over TLS",
    "no-backend-process": "the request goes to a script server (php-fpm, fcgiwrap) verify does not run",
    "trace-method": "the request's method is TRACE",
    "options-method": "the request's method is OPTIONS",
    "encoded-slash": "the request's path holds %2F",
    "doubled-slash": "the request's path holds a doubled slash",
    "directory-request": "the request's path names a directory (ends with a slash, or with a `.` or `..` "
                         "segment, which both servers resolve to the directory)",
    "path-info": "the request's path goes on after a segment that looks like a file name (has a dot)",
    "inner-segment": "the request's path has a segment before its last one (a directory part: /d/name)",
    "status-403": "httpd or nginx answered 403 (forbidden)",
    "status-404": "httpd or nginx answered 404 (not found)",
    "nginx-refused": "nginx answered 401 or 403 (asked for a login, or refused)",
    "httpd-refused": "httpd answered 401 or 403 (asked for a login, or refused)",
    "conditional-request": "the request carries If-None-Match or If-Modified-Since",
    "credentials": "the request carries an Authorization header",
    "same-items": "both servers sent the header with the same comma-separated items, in another order, "
                  "repeated or on other lines",
    "refused-before-host": "nginx answered 400 to a target that is not a path (`~`), or a path that climbs "
                           "above the root or holds a malformed %-escape, which it refuses before it reads the "
                           "Host header",
    "nginx-failed": "nginx's answer is a connection error (a refused connection or TLS handshake) where httpd answered",
}


@dataclass(frozen=True, slots=True)
class Effect:
    field: str
    change: str = "any"
    when: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        assert self.change in CHANGES, self.change
        for cond in self.when:
            assert cond in CONDITIONS, cond

    def covers(self, field_name: str) -> bool:
        """Whether this effect names FIELD_NAME (`header` covers `header x-foo`; `*` covers everything)."""
        return self.field == "*" or field_name == self.field or field_name.startswith(self.field + " ")

    def to_json(self) -> dict:
        return {"field": self.field, "change": self.change, "when": list(self.when)}


def effects(*specs: str) -> tuple[Effect, ...]:
    """Effects from compact specs: `FIELD[:CHANGE][@COND,COND]`, e.g. `header:missing@proxied,error-status`."""
    out = []
    for spec in specs:
        head, _, when = spec.partition("@")
        name, _, change = head.partition(":")
        out.append(Effect(name, change or "any", tuple(c for c in when.split(",") if c)))
    return tuple(out)


# What a directive of each module can change, for codes that declare `directive`: the module's own
# observable effects. A module missing here (or an unknown directive) may change anything.
_EVERYTHING = effects("*")
MODULE_FIELDS: dict[str, tuple[Effect, ...]] = {
    "mod_headers.c": effects("header", "backend header"),
    "mod_expires.c": effects("header cache-control", "header expires"),
    "mod_log_config.c": (), "mod_logio.c": (), "mod_log_debug.c": (), "mod_log_forensic.c": (),
    "mod_unixd.c": (), "mpm": (), "event.c": (), "prefork.c": (), "worker.c": (), "mod_so.c": (),
    "mod_status.c": effects("status", "body", "header"),
    "mod_mime.c": effects("header content-type", "header content-language", "header content-encoding",
                          "status", "body"),
    "mod_mime_magic.c": effects("header content-type"),
    "mod_deflate.c": effects("header content-encoding", "header vary", "body", "backend header"),
    "mod_brotli.c": effects("header content-encoding", "header vary", "body"),
    "mod_autoindex.c": effects("body", "status", "header"),
    "mod_dir.c": effects("status", "location", "body"),
    "mod_alias.c": effects("status", "location", "body", "backend"),
    "mod_rewrite.c": effects("status", "location", "body", "backend", "backend path", "backend query", "header"),
    "mod_ssl.c": effects("connection", "status", "header", "backend header"),
    "mod_http2.c": effects("connection", "header"),
    "mod_usertrack.c": effects("header set-cookie"),
    "mod_remoteip.c": effects("backend header x-forwarded-for", "status"),
    "mod_negotiation.c": effects("status", "body", "header"),
    "mod_speling.c": effects("status", "location", "body"),
    "mod_cache.c": effects("header", "body"), "mod_cache_disk.c": effects("header", "body"),
    "mod_cache_socache.c": effects("header", "body"),
    "mod_include.c": effects("body", "header"),
    "mod_substitute.c": effects("body"), "mod_sed.c": effects("body"), "mod_proxy_html.c": effects("body", "header"),
}
for _family in ("mod_auth_basic.c", "mod_auth_digest.c", "mod_auth_form.c", "mod_authn_core.c",
                "mod_authn_file.c", "mod_authn_dbm.c", "mod_authn_anon.c", "mod_authn_dbd.c", "mod_authn_socache.c",
                "mod_authz_core.c", "mod_authz_host.c", "mod_authz_user.c", "mod_authz_groupfile.c",
                "mod_authz_dbm.c", "mod_authz_owner.c", "mod_authz_dbd.c", "mod_authnz_ldap.c", "mod_access_compat.c"):
    # access modules narrow or widen access; a widening is never explained whatever is declared
    MODULE_FIELDS[_family] = effects("status", "header www-authenticate", "body")
for _family in ("mod_proxy.c", "mod_proxy_http.c", "mod_proxy_balancer.c", "mod_proxy_fcgi.c", "mod_proxy_scgi.c",
                "mod_proxy_wstunnel.c", "mod_proxy_ajp.c", "mod_proxy_uwsgi.c", "mod_proxy_hcheck.c",
                "mod_proxy_express.c", "mod_proxy_ftp.c", "mod_proxy_connect.c", "mod_proxy_http2.c"):
    MODULE_FIELDS[_family] = effects("status", "location", "body", "connection", "backend", "backend method",
                                     "backend path", "backend query", "backend header", "header")


def declaration_json(code: str) -> list[dict]:
    """CODE's declaration as JSON objects (`field`, `change`, `when`), for `explain --list --format json`;
    an empty list for a code that explains nothing."""
    from .codes import explains, lookup
    lookup(code)                # an unregistered code is an error, not an empty declaration
    return [effect.to_json() for effect in explains(code)]


def directive_effects(directive: str | None) -> tuple[Effect, ...]:
    """What the named directive's module can change (everything, for an unknown one)."""
    if not directive:
        return _EVERYTHING
    from .catalogue import known
    info = known(directive.lstrip("<").rstrip(">"))
    if info is None:
        return _EVERYTHING
    return MODULE_FIELDS.get(info.module, _EVERYTHING)


def describe(effect: Effect) -> str:
    """An effect in words: `header x-foo missing in nginx when proxied, error-status`."""
    change = {"missing": " missing in nginx", "added": " added by nginx", "changed": " changed",
              "any": ""}[effect.change]
    field = {"*": "any difference", "directive": "whatever the named directive changes"}.get(effect.field,
                                                                                            effect.field)
    return field + change + (" when " + ", ".join(effect.when) if effect.when else "")


def describe_effects(declared) -> str:
    return "; ".join(describe(e) for e in declared)
