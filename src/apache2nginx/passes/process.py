"""Process-level and build-level directives that have no per-site meaning in nginx.

Module loading, the server root, pid and lock files, and MPM tuning configure
the httpd process itself. nginx has its own equivalents (worker_processes,
worker_connections, pid) that are tuned on their own merits, so these are
not-applicable: reported as info, never silently dropped. The run-time user and
group do carry over (nginx's `user`, in a complete nginx.conf), and
HostnameLookups is checked against what nginx always does.
"""
from __future__ import annotations

from .base import Context, Disposition, flag, Rule, table
from ..model import Stmt
from ..syntax.tree import Directive

_MPM_NOTE = ("MPM tuning has no per-server nginx equivalent; size worker_processes and "
             "worker_connections globally instead")

_NA = {
    "LoadModule": "nginx modules are compiled in or loaded with load_module; the translation needs none",
    "LoadFile": "shared libraries are not loaded by configuration in nginx",
    "ServerRoot": "used to resolve relative paths while translating; nginx has its own prefix",
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



_RUN_AS_NOTE = ("the run-time user and group belong to nginx's main context (`user NAME GROUP;`), which only a "
                "full server configuration has; set it there (this value is not a plain name)")


def run_as(ctx: Context, d: Directive) -> Disposition:
    """User/Group → `user NAME [GROUP];` in a complete nginx.conf: nginx's workers otherwise run as its
    compiled-in default (nobody), which may not read what httpd's user could, or write where it wrote.

    A numeric id (#33) or a value left to the environment (${APACHE_RUN_USER}) cannot be written for nginx."""
    value = d.args[0] if d.args else ""
    if not ctx.model.full or not ctx.server.is_main or ctx.scope is not None or not value \
            or value.startswith("#") or "$" in value:
        return Disposition.NOT_APPLICABLE
    stmt = next((s for s in ctx.model.main_statements if s.name == "user"), None)
    if d.key == "user":
        group = ctx.options.get("run_group") or (stmt.args[1:] if stmt else [])
        if stmt is None:
            ctx.model.main_statements.insert(0, Stmt("user", [value, *group], d.span))
        else:
            stmt.args[:1] = [value]
    elif stmt is not None:
        stmt.args[1:] = [value]
    else:
        ctx.options["run_group"] = [value]   # Group before User: joined when User comes (see finish_model)
        ctx.options["run_group_directive"] = d
    return Disposition.EXACT


def finish_model(ctx: Context) -> None:
    """A Group with no User after it: nginx's `user` needs a user name, so the group was not carried over."""
    d = ctx.options.get("run_group_directive")
    if d is not None and not any(s.name == "user" for s in ctx.model.main_statements):
        ctx.redispose(d, Disposition.NOT_APPLICABLE)
        ctx.diags.add("A2N102", f"{d.name}: not applicable to nginx: without a User, nginx's `user` directive "
                      "has no user to name the group with; set `user NAME GROUP;` by hand", d.span,
                      directive=d.name)


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
              Rule("User", Disposition.EXACT, run_as, note=_RUN_AS_NOTE),
              Rule("Group", Disposition.EXACT, run_as, note=_RUN_AS_NOTE),
              Rule("HostnameLookups", Disposition.EXACT, hostname_lookups))
