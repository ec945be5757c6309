"""mod_log_config and the error log: LogFormat, CustomLog, TransferLog, ErrorLog, LogLevel.

Every `%` directive of a LogFormat maps to an nginx variable; where the value
differs (units of `%D`, request start vs end time for `%t`, `-` vs `0` for
`%b` through a map) a warning says so. `log_format` is http-level and its
names are global, so formats keep their Apache nickname except where that
clashes with nginx's built-in `combined` or with another definition.
"""
from __future__ import annotations

import re

from ..model import LogFormat, MapBlock, Stmt
from ..syntax.tree import Directive
from .access import DEBIAN_SERVER_ROOT
from .setenvif import condition_variable
from . import contexts
from .base import Context, Disposition, Rule, table

# Debian's apache2.conf defines these; a site file uses them without defining them.
STANDARD_FORMATS = {
    "vhost_combined": '%v:%p %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"',
    "combined": '%h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"',
    "common": '%h %l %u %t "%r" %>s %O',
    "referer": '%{Referer}i -> %U',
    "agent": '%{User-agent}i',
}

SIMPLE = {
    "a": "$remote_addr", "A": "$server_addr", "B": "$body_bytes_sent", "f": "$request_filename",
    "h": "$remote_addr", "H": "$server_protocol", "l": "-", "m": "$request_method", "p": "$server_port",
    "P": "$pid", "q": "$is_args$args", "r": "$request", "s": "$status", "u": "$remote_user", "v": "$server_name",
    "V": "$host", "O": "$bytes_sent", "I": "$request_length",
}
APPROX = {
    "t": ("[$time_local]", "%t is the time the request started in httpd, the time it was logged in nginx"),
    "D": ("$request_time", "%D is microseconds in httpd; $request_time is seconds with millisecond resolution"),
    "T": ("$request_time", "%T is whole seconds in httpd; $request_time has a millisecond fraction"),
    "U": ("$uri", "%U is the original URL path in httpd; $uri is the final one after internal redirects"),
    "k": ("$connection_requests", "%k counts keep-alive requests from 0; $connection_requests from 1"),
}
_DIRECTIVE = re.compile(r"%(?P<cond>!?[0-9,]*)?(?P<mod>[<>])?(?:\{(?P<arg>[^}]*)\})?(?P<letter>[a-zA-Z%])")


def convert_format(fmt: str) -> tuple[str, list[str], list[str], bool]:
    """(nginx format, approximation notes, untranslatable directives, needs the %b map)."""
    out: list[str] = []
    notes: list[str] = []
    missing: list[str] = []
    needs_b = False
    pos = 0
    for m in _DIRECTIVE.finditer(fmt):
        out.append(fmt[pos:m.start()].replace("$", "${dollar}") if "$" in fmt[pos:m.start()] else fmt[pos:m.start()])
        pos = m.end()
        letter, arg, cond = m.group("letter"), m.group("arg"), m.group("cond")
        text = m.group(0)
        if cond:
            missing.append(text)
            out.append("-")
            continue
        if letter == "%":
            out.append("%")
        elif arg is not None and letter in "ioC":
            name = arg.lower().replace("-", "_")
            out.append({"i": f"$http_{name}", "o": f"$sent_http_{name}", "C": f"$cookie_{arg}"}[letter])
        elif arg is not None and letter == "a" and arg == "c":
            out.append("$realip_remote_addr")
        elif arg is not None and letter == "p":
            if arg == "remote":
                out.append("$remote_port")
            else:
                out.append("$server_port")
        elif arg is not None and letter == "P" and arg == "pid":
            out.append("$pid")
        elif arg is not None and letter == "e" and arg == "UNIQUE_ID":
            out.append("$request_id")
            notes.append("%{UNIQUE_ID}e becomes $request_id, whose format differs")
        elif arg is not None and letter == "T" and arg in ("ms", "us", "s"):
            out.append("$request_time")
            notes.append(f"%{{{arg}}}T: $request_time is seconds with millisecond resolution")
        elif arg is not None:
            missing.append(text)
            out.append("-")
        elif letter == "b":
            out.append("$a2n_bytes_clf")
            needs_b = True
        elif letter in SIMPLE:
            out.append(SIMPLE[letter])
        elif letter in APPROX:
            value, note = APPROX[letter]
            out.append(value)
            notes.append(note)
        else:
            missing.append(text)
            out.append("-")
    tail = fmt[pos:]
    out.append(tail.replace("$", "${dollar}") if "$" in tail else tail)
    return "".join(out), notes, missing, needs_b


def _define(ctx: Context, nickname: str, fmt: str, d: Directive, user: Directive | None = None) -> str:
    """Register an nginx log_format for an Apache format (defined by D, used by the log directive USER);
    returns the nginx name. Its approximations are reported at the format, naming the log that uses it."""
    nginx_fmt, notes, missing, needs_b = convert_format(fmt)
    said = ctx.main.settings.setdefault("log_format_reports", {})
    if id(d) in said:
        # a LogFormat's approximations were said where it stands: they name each log that uses it
        for diag in said[id(d)]:
            if user is not None:
                diag.relate(user.span)
    else:
        said[id(d)] = _report_format(ctx, nickname, d, notes, missing)
    if needs_b:
        if not ctx.model.has_map("$a2n_bytes_clf"):
            ctx.model.maps.append(MapBlock("$body_bytes_sent", "$a2n_bytes_clf", [("0", "-")], "$body_bytes_sent"))
    name = "apache_combined" if nickname == "combined" else re.sub(r"[^A-Za-z0-9_]", "_", nickname) or "custom"
    existing = ctx.model.log_formats.get(name)
    n = 2
    while existing is not None and existing.format != nginx_fmt:
        name = f"{name.rsplit('_v', 1)[0]}_v{n}"
        existing = ctx.model.log_formats.get(name)
        n += 1
    if existing is None:
        ctx.model.log_formats[name] = LogFormat(name, nginx_fmt, span=d.span)
    return name


def _report_format(ctx: Context, nickname: str, d: Directive, notes: list[str], missing: list[str]) -> list:
    out = [ctx.diags.add("A2N601", f"LogFormat {nickname}: {note}", d.span, directive=d.name) for note in notes]
    if missing:
        out.append(ctx.diags.add("A2N602", f"LogFormat {nickname}: {', '.join(missing)} have no nginx equivalent "
                                 "and are logged as -", d.span, directive=d.name))
    return out


def log_format(ctx: Context, d: Directive) -> Disposition:
    """LogFormat: its approximations are said here, once, whether or not a log of this input uses it (one in
    another file may)."""
    if not d.args:
        ctx.diags.add("A2N001", "LogFormat needs a format", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    fmt = d.args[0]
    nickname = d.args[1] if len(d.args) > 1 else "default"
    ctx.settings.setdefault("log_formats", {})[nickname] = (fmt, d)
    if len(d.args) == 1:
        ctx.settings["transfer_format"] = (fmt, d)
    _, notes, missing, _ = convert_format(fmt)
    if notes or missing:
        ctx.main.settings.setdefault("log_format_reports", {})[id(d)] = _report_format(ctx, nickname, d, notes,
                                                                                       missing)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


def _lookup_format(ctx: Context, nickname: str):
    for holder in (ctx.scope.settings if ctx.scope else None, ctx.server.settings, ctx.main.settings):
        if holder and nickname in holder.get("log_formats", {}):
            return holder["log_formats"][nickname]
    return None


def _under_server_root(ctx: Context, target: str) -> str:
    """httpd opens a relative log file name under ServerRoot (Red Hat's `logs/error_log` is
    /etc/httpd/logs/error_log); nginx would open it under its own prefix."""
    if target.startswith("/") or target.lower().startswith("syslog"):
        return target
    return (ctx.options.get("server_root") or DEBIAN_SERVER_ROOT).rstrip("/") + "/" + target


def custom_log(ctx: Context, d: Directive) -> Disposition:
    args = list(d.args)
    if d.key == "transferlog":
        if not args:
            return Disposition.UNSUPPORTED
        found = ctx.setting("transfer_format")
        fmt, src = found if found else ('%h %l %u %t "%r" %>s %b', d)
        target, spec, rest = args[0], None, []
    else:
        if len(args) < 2:
            ctx.diags.add("A2N001", "CustomLog needs a file and a format", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        target, spec, rest = args[0], args[1], args[2:]
        fmt, src = None, d
    if target.startswith("|"):
        ctx.diags.add("A2N603", f"{d.name} {target}: piped logs have no nginx equivalent; nothing was emitted",
                      d.arg_span(0), directive=d.name,
                      hint="log to a file and rotate it externally, or to syslog:server=unix:/dev/log")
        return Disposition.UNSUPPORTED
    if "$" in target:
        # httpd opens the file named as written at startup; nginx reads `$name` in access_log's file name as a
        # variable, and a name with variables (`${a2n_dollar}` too) is opened by the worker for each line,
        # unbuffered, and only where the request's root directory exists
        ctx.diags.add("A2N101", f"{d.name} {target}: nginx would open a file name holding `$` for every "
                      "request, as its worker user; nothing was emitted for it", d.arg_span(0),
                      directive=d.name, hint="rename the log file without `$`")
        return Disposition.UNSUPPORTED
    disposition = Disposition.EXACT
    if spec is not None:
        if "%" in spec:
            fmt, src = spec, d
            nickname = f"custom_{len(ctx.model.log_formats) + 1}"
        else:
            nickname = spec
            found = _lookup_format(ctx, spec)
            if found:
                fmt, src = found
            elif spec in STANDARD_FORMATS:
                fmt = STANDARD_FORMATS[spec]
                ctx.diags.add("A2N604", f"CustomLog: the format {spec} is not defined in the input; Debian's "
                              f"definition is used: {fmt}", d.arg_span(1), directive=d.name)
            else:
                ctx.diags.add("A2N605", f"CustomLog: no LogFormat named {spec}; httpd logs the text {spec!r} "
                              "literally, and so does the translation", d.arg_span(1), directive=d.name)
                fmt = spec
    else:
        nickname = "transfer"
    name = _define(ctx, nickname, fmt, src, d)
    out = [_under_server_root(ctx, target), name]
    conditions = [condition_variable(ctx, r[4:], widen=False) if r.lower().startswith("env=") else None for r in rest]
    if len(rest) == 1 and conditions[0] is not None:
        out.append(f"if={conditions[0]}")
        rest = []
    if rest:
        ctx.diags.add("A2N606", f"{d.name} {' '.join(rest)}: the condition is not translated; every request is "
                      "logged", d.span, directive=d.name)
        disposition = Disposition.APPROXIMATE
    # buffered as nginx deployments log: the same lines, written in 64k blocks at most a second late
    ctx.emit("access_log", out + ["buffer=64k", "flush=1s"], d.span)
    _, notes, missing, _ = convert_format(fmt)
    if notes or missing:
        disposition = Disposition.APPROXIMATE
    return disposition


LEVELS = {"emerg": "emerg", "alert": "alert", "crit": "crit", "error": "error", "warn": "warn", "notice": "notice",
          "info": "info", "debug": "debug"}


def error_log(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        return Disposition.UNSUPPORTED
    target = d.args[0]
    if target.startswith("|"):
        ctx.diags.add("A2N603", f"ErrorLog {target}: piped logs have no nginx equivalent; nothing was emitted",
                      d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    disposition = Disposition.EXACT
    if target.lower().startswith("syslog"):
        facility = target.split(":", 1)[1] if ":" in target else "local7"
        target = f"syslog:server=unix:/dev/log,facility={facility}"
        disposition = Disposition.APPROXIMATE
    ctx.settings["error_log"] = (_under_server_root(ctx, target), d.span)
    return disposition


def log_level(ctx: Context, d: Directive) -> Disposition:
    level = None
    disposition = Disposition.EXACT
    for arg in d.args:
        if ":" in arg:
            disposition = Disposition.APPROXIMATE
            continue
        low = arg.lower()
        if low.startswith("trace"):
            level, disposition = "debug", Disposition.APPROXIMATE
        elif low in LEVELS:
            level = LEVELS[low]
    if disposition is Disposition.APPROXIMATE:
        ctx.diags.add("A2N607", f"LogLevel {' '.join(d.args)}: per-module and trace levels have no nginx "
                      "equivalent; the overall level is kept", d.span, directive=d.name)
    if level:
        ctx.settings["log_level"] = (level, d.span)
    return disposition


def finish_server(ctx: Context, server) -> None:
    target = server.settings.get("error_log")
    level = server.settings.get("log_level") or ctx.main.settings.get("log_level")
    if target:
        stmt = Stmt("error_log", [target[0], (level[0] if level else "warn")], target[1])
        if server.is_main and ctx.model.full:
            ctx.model.main_statements.append(stmt)
        else:
            server.statements.append(stmt)


RULES = table(
    Rule("LogFormat", Disposition.EXACT, log_format),
    Rule("CustomLog", Disposition.EXACT, custom_log),
    Rule("TransferLog", Disposition.EXACT, custom_log),
    Rule("ErrorLog", Disposition.EXACT, error_log),
    Rule("LogLevel", Disposition.EXACT, log_level),
)


RULES = contexts.checked(RULES)
