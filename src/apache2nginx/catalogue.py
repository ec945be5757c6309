"""What httpd directives exist: the catalogue unknown-directive detection and
`<IfDirective>` use.

`data/apache_directives.tsv` is generated from Debian's apache2 2.4 with every
shipped module loaded (`apache2 -L`); the third-party list below covers modules
common in the wild that Debian does not ship, so their directives are reported
as untranslatable rather than unknown.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class DirectiveInfo:
    name: str
    module: str
    context: str

    @property
    def module_id(self) -> str:
        from .syntax.modules import module_id
        return module_id(self.module)


THIRD_PARTY = {
    "mod_wsgi.c": "WSGIDaemonProcess WSGIProcessGroup WSGIScriptAlias WSGIScriptAliasMatch WSGIApplicationGroup "
                  "WSGIPassAuthorization WSGIPythonPath WSGIPythonHome WSGIRestrictEmbedded WSGISocketPrefix "
                  "WSGIImportScript WSGICallableObject WSGIChunkedRequest WSGILazyInitialization",
    "mod_php.c": "php_value php_flag php_admin_value php_admin_flag PHPIniDir",
    "mod_passenger.c": "PassengerRoot PassengerRuby PassengerEnabled PassengerAppRoot PassengerAppEnv "
                       "PassengerDefaultRuby PassengerMinInstances PassengerMaxPoolSize PassengerFriendlyErrorPages "
                       "RailsEnv RackEnv PassengerStartTimeout PassengerUser PassengerGroup PassengerNodejs "
                       "PassengerPython PassengerBaseURI PassengerInstanceRegistryDir PassengerPreStart",
    "mod_security2.c": "SecRuleEngine SecRequestBodyAccess SecResponseBodyAccess SecRule SecAction SecDefaultAction "
                       "SecAuditEngine SecAuditLog SecAuditLogParts SecDataDir SecTmpDir SecRuleRemoveById "
                       "SecRequestBodyLimit SecRequestBodyNoFilesLimit SecPcreMatchLimit SecPcreMatchLimitRecursion "
                       "SecServerSignature SecDebugLog SecDebugLogLevel SecMarker SecUploadDir SecComponentSignature",
    "mod_perl.c": "PerlModule PerlRequire PerlHandler PerlResponseHandler PerlOptions PerlSetVar PerlAddVar "
                  "PerlSwitches PerlPostConfigRequire PerlInitHandler PerlFixupHandler PerlAuthenHandler "
                  "PerlAuthzHandler PerlAccessHandler PerlTransHandler PerlSetEnv PerlPassEnv <Perl",
    "mod_fcgid.c": "FcgidWrapper FcgidMaxRequestLen FcgidIOTimeout FcgidConnectTimeout FcgidMaxProcesses "
                   "FcgidIdleTimeout FcgidBusyTimeout FcgidInitialEnv FcgidMaxRequestsPerProcess FcgidProcessLifeTime "
                   "FcgidIPCDir FcgidProcessTableFile FcgidPassHeader FcgidMinProcessesPerClass FcgidMaxProcessesPerClass "
                   "FCGIWrapper IPCCommTimeout IPCConnectTimeout MaxRequestLen DefaultInitEnv",
    "mod_evasive.c": "DOSHashTableSize DOSPageCount DOSSiteCount DOSPageInterval DOSSiteInterval DOSBlockingPeriod "
                     "DOSEmailNotify DOSSystemCommand DOSLogDir DOSWhitelist",
    "mod_pagespeed.c": "ModPagespeed ModPagespeedEnableFilters ModPagespeedDisableFilters ModPagespeedFileCachePath",
    "mod_auth_openidc.c": "OIDCProviderMetadataURL OIDCClientID OIDCClientSecret OIDCRedirectURI OIDCCryptoPassphrase "
                          "OIDCScope OIDCRemoteUserClaim",
    "mod_jk.c": "JkMount JkUnMount JkWorkersFile JkLogFile JkLogLevel JkShmFile JkOptions JkMountCopy",
    "mod_rpaf.c": "RPAF_Enable RPAF_ProxyIPs RPAF_Header RPAF_SetHostName RPAFenable RPAFproxy_ips RPAFheader",
    "mod_xsendfile.c": "XSendFile XSendFilePath",
    "mod_cloudflare.c": "CloudFlareRemoteIPHeader CloudFlareRemoteIPTrustedProxy",
    "mod_qos.c": "QS_SrvMaxConnPerIP QS_LocRequestLimitMatch QS_SrvMaxConn QS_ClientEventBlockCount",
}


@lru_cache(maxsize=1)
def catalogue() -> dict[str, DirectiveInfo]:
    table: dict[str, DirectiveInfo] = {}
    text = resources.files("apache2nginx.data").joinpath("apache_directives.tsv").read_text("utf-8")
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, module, context, _desc = (line.split("\t") + ["", "", ""])[:4]
        table[name.lower()] = DirectiveInfo(name, module, context)
    for module, names in THIRD_PARTY.items():
        for name in names.split():
            table.setdefault(name.lower(), DirectiveInfo(name, module, "third-party module"))
    return table


def known(name: str) -> DirectiveInfo | None:
    return catalogue().get(name.lower())


def known_section(name: str) -> DirectiveInfo | None:
    return catalogue().get("<" + name.lower())


@lru_cache(maxsize=4096)
def closest(name: str) -> str | None:
    names = [info.name for info in catalogue().values()]
    lower = {n.lower(): n for n in names}
    match = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.75)
    return lower[match[0]] if match else None
