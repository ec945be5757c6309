"""The module profile `<IfModule>` is evaluated against.

An input that loads its modules (a whole server configuration: Debian's
apache2.conf with mods-enabled/*.load, Red Hat's httpd.conf with
conf.modules.d/*.conf) states its own profile, as httpd reads it: from the
first LoadModule on, the profile is httpd's built-in modules, the modules
loaded so far and any given with `--module`, so `<IfModule ssl_module>` is
false on a server that does not load mod_ssl.

An input that loads none (a site file alone) is evaluated against a default
profile: httpd's built-in modules as Debian compiles them, every module
Debian's apache2 packages ship (with the event MPM, Debian's default), and any
given with `--module`; `--without-module` takes one out. A site wrapped in
`<IfModule mod_proxy.c>` is thus translated, as it is on any server that uses
it, while `<IfModule mpm_prefork_module>` is skipped as under Debian's event
MPM. Module names are accepted in every spelling httpd accepts (`ssl_module`,
`mod_ssl.c`, Red Hat's `modules/mod_ssl.so`) and the short forms people type
(`ssl`, `mod_ssl`).
"""
from __future__ import annotations

import re

# `apache2 -l` on Debian.
BUILTIN = {"core_module", "so_module", "watchdog_module", "http_module", "log_config_module", "logio_module",
           "version_module", "unixd_module"}

# Every module Debian's apache2 packages ship in /usr/lib/apache2/modules (MPMs aside: event is the default).
DEBIAN_SHIPPED = {
    "access_compat_module", "actions_module", "alias_module", "allowmethods_module", "asis_module",
    "auth_basic_module", "auth_digest_module", "auth_form_module", "authn_anon_module", "authn_core_module",
    "authn_dbd_module", "authn_dbm_module", "authn_file_module", "authn_socache_module", "authnz_fcgi_module",
    "authnz_ldap_module", "authz_core_module", "authz_dbd_module", "authz_dbm_module",
    "authz_groupfile_module", "authz_host_module", "authz_owner_module", "authz_user_module",
    "autoindex_module", "brotli_module", "buffer_module", "cache_disk_module", "cache_module",
    "cache_socache_module", "cern_meta_module", "cgi_module", "cgid_module", "charset_lite_module",
    "data_module", "dav_fs_module", "dav_lock_module", "dbd_module", "deflate_module", "dialup_module",
    "dir_module", "dumpio_module", "echo_module", "env_module", "expires_module", "ext_filter_module",
    "file_cache_module", "filter_module", "headers_module", "heartbeat_module", "heartmonitor_module",
    "http2_module", "ident_module", "imagemap_module", "include_module", "info_module",
    "lbmethod_bybusyness_module", "lbmethod_byrequests_module", "lbmethod_bytraffic_module",
    "lbmethod_heartbeat_module", "ldap_module", "log_debug_module", "log_forensic_module", "lua_module",
    "macro_module", "md_module", "mime_magic_module", "mime_module", "negotiation_module", "proxy_ajp_module",
    "proxy_balancer_module", "proxy_connect_module", "proxy_express_module", "proxy_fcgi_module",
    "proxy_fdpass_module", "proxy_ftp_module", "proxy_hcheck_module", "proxy_html_module",
    "proxy_http2_module", "proxy_http_module", "proxy_module", "proxy_scgi_module", "proxy_uwsgi_module",
    "proxy_wstunnel_module", "ratelimit_module", "reflector_module", "remoteip_module", "reqtimeout_module",
    "request_module", "rewrite_module", "sed_module", "session_cookie_module", "session_crypto_module",
    "session_dbd_module", "session_module", "setenvif_module", "slotmem_plain_module", "slotmem_shm_module",
    "socache_dbm_module", "socache_memcache_module", "socache_redis_module", "socache_shmcb_module",
    "speling_module", "ssl_module", "status_module", "substitute_module", "suexec_module", "unique_id_module",
    "userdir_module", "usertrack_module", "vhost_alias_module", "xml2enc_module",
}

MPMS = {"mpm_event_module", "mpm_worker_module", "mpm_prefork_module", "mpm_winnt_module", "mpm_netware_module",
        "mpm_itk_module"}

_SOURCE_NAMES = {
    "core.c": "core_module", "http_core.c": "http_module", "mod_so.c": "so_module",
    "prefork.c": "mpm_prefork_module", "event.c": "mpm_event_module", "worker.c": "mpm_worker_module",
    "mpm_winnt.c": "mpm_winnt_module", "mpm_netware.c": "mpm_netware_module",
    "mod_mpm_prefork.c": "mpm_prefork_module", "mod_mpm_event.c": "mpm_event_module",
    "mod_mpm_worker.c": "mpm_worker_module", "unixd.c": "unixd_module",
    "prefork": "mpm_prefork_module", "event": "mpm_event_module", "worker": "mpm_worker_module",
}

_SO_FILE = re.compile(r"(?:^|/)mod_([A-Za-z0-9_]+)\.so$")


def module_id(name: str) -> str:
    """Canonical module identifier (`ssl_module`) for any accepted spelling."""
    n = name.strip().lower()
    if n in _SOURCE_NAMES:
        return _SOURCE_NAMES[n]
    if n.endswith("_module"):
        return n
    if n.endswith(".c"):
        n = n[:-2]
    if n.endswith(".so"):
        n = n[:-3]
    if n.startswith("mod_"):
        n = n[4:]
    return n + "_module"


class ModuleProfile:
    def __init__(self, extra: set[str] | None = None, without: set[str] | None = None):
        self.explicit = {module_id(m) for m in (extra or set())}
        self.without = {module_id(m) for m in (without or set())}
        self.loaded: set[str] = set(BUILTIN) | DEBIAN_SHIPPED | {"mpm_event_module"}
        if self.explicit & MPMS:
            self.loaded -= MPMS
        self.loaded |= self.explicit
        self.loaded -= self.without
        self.from_input = False       # the input loads its modules: the default profile no longer applies

    def load(self, ident: str, path: str = "") -> None:
        mod = module_id(ident) if ident else None
        if not mod and path:
            m = _SO_FILE.search(path)
            if m:
                mod = module_id(m.group(1))
        if not mod:
            return
        if not self.from_input:
            # httpd knows only the modules it was built with and those loaded so far
            self.from_input = True
            self.loaded = (set(BUILTIN) | self.explicit) - self.without
        self.loaded.add(mod)

    def has(self, name: str) -> bool:
        return module_id(name) in self.loaded
