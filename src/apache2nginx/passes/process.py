"""Process-level and build-level directives that have no per-site meaning in nginx.

Module loading, the server root, run-time user, pid and lock files, and MPM
tuning configure the httpd process itself. nginx has its own equivalents
(worker_processes, worker_connections, user, pid) that are tuned on their own
merits, so these are not-applicable: reported as info, never silently dropped.
"""
from __future__ import annotations

from .base import Context, Disposition, flag, Rule, table
from ..syntax.tree import Directive

_MPM_NOTE = ("MPM tuning has no per-server nginx equivalent; size worker_processes and "
             "worker_connections globally instead")

_NA = {
    "LoadModule": "nginx modules are compiled in or loaded with load_module; the translation needs none",
    "LoadFile": "shared libraries are not loaded by configuration in nginx",
    "ServerRoot": "used to resolve relative paths while translating; nginx has its own prefix",
    "User": "the run-time user belongs to nginx's main context (user), set it there if needed",
    "Group": "the run-time group belongs to nginx's main context (user), set it there if needed",
    "PidFile": "nginx has its own pid file (pid)",
    "Mutex": "nginx needs no accept mutex configuration",
    "DefaultRuntimeDir": "nginx keeps its runtime files under its prefix",
    "ServerAdmin": "only shown on httpd's own error pages; nginx's pages do not show it",
    "ServerLimit": _MPM_NOTE, "StartServers": _MPM_NOTE, "MinSpareServers": _MPM_NOTE,
    "MaxSpareServers": _MPM_NOTE, "MaxRequestWorkers": _MPM_NOTE, "MaxClients": _MPM_NOTE,
    "MaxConnectionsPerChild": _MPM_NOTE, "MaxRequestsPerChild": _MPM_NOTE, "MinSpareThreads": _MPM_NOTE,
    "MaxSpareThreads": _MPM_NOTE, "ThreadLimit": _MPM_NOTE, "ThreadsPerChild": _MPM_NOTE,
    "ThreadStackSize": _MPM_NOTE, "AsyncRequestWorkerFactor": _MPM_NOTE, "MaxMemFree": _MPM_NOTE,
    "ListenBacklog": "set backlog= on the nginx listen directive if the default is not enough",
    "LockFile": "removed in httpd 2.4 (use Mutex); nothing to translate",
    "AcceptMutex": "removed in httpd 2.4 (use Mutex); nothing to translate",
    "GracefulShutdownTimeout": "nginx uses worker_shutdown_timeout in its main context",
    "EnableExceptionHook": "an httpd debugging hook",
    "CoreDumpDirectory": "nginx uses working_directory in its main context",
}



def hostname_lookups(ctx: Context, d: Directive) -> Disposition:
    """Off is what nginx always does; On/Double make httpd log and rewrite with host names nginx never has.

    Recorded for mod_rewrite too: with lookups on anywhere, %{REMOTE_HOST} is a DNS name, not the address."""
    if flag(d) in ("on", "double"):
        ctx.options["hostname_lookups"] = True
        ctx.diags.add("A2N290", f"HostnameLookups {d.args[0]}: httpd logs and rewrites with client host names; "
                      "nginx uses the address", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


RULES = table(*(Rule(name, Disposition.NOT_APPLICABLE, note=note) for name, note in _NA.items()),
              Rule("HostnameLookups", Disposition.EXACT, hostname_lookups))
