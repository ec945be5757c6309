"""mod_alias: Redirect, RedirectMatch, RedirectPermanent/Temp, Alias, AliasMatch, ScriptAlias.

Redirects and aliases are first-match lists that run after ProxyPass; the
layout step turns each entry into `= P` / `^~ P/` locations (aliases keep
their slashes paired, so `/u../x` can never reach outside the aliased
directory) and redirects keep the remainder of the path and the query string
exactly as httpd builds them.
"""
from __future__ import annotations

import re

from ..model import Route, Stmt
from ..syntax.tree import Directive
from .base import Context, Disposition, Rule, clean_path, table
from .pcre import httpd_refuses

STATUS = {"permanent": 301, "temp": 302, "seeother": 303, "gone": 410}


def _status(ctx: Context, d: Directive, args: list[str]) -> tuple[int, list[str]] | None:
    if d.key == "redirectpermanent":
        return 301, args
    if d.key == "redirecttemp":
        return 302, args
    if args and args[0].lower() in STATUS:
        return STATUS[args[0].lower()], args[1:]
    if args and args[0].isdigit():
        return int(args[0]), args[1:]
    return 302, args


def redirect(ctx: Context, d: Directive) -> Disposition:
    parsed = _status(ctx, d, list(d.args))
    status, rest = parsed
    if ctx.scope is not None:
        return _redirect_in_section(ctx, d, status, rest)
    regex = d.key == "redirectmatch"
    if not rest:
        ctx.diags.add("A2N001", f"{d.name} needs a path", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    path, target = rest[0], rest[1] if len(rest) > 1 else ""
    refused = httpd_refuses(path) if regex else None
    if refused is not None:
        ctx.diags.add("A2N001", f"{d.name} {path}: regular expression could not be compiled ({refused}); httpd "
                      "refuses the configuration", d.arg_span(len(d.args) - len(rest)), directive=d.name)
        return Disposition.UNSUPPORTED
    if 300 <= status < 400 and not target:
        ctx.diags.add("A2N001", f"{d.name}: a {status} redirect needs a URL", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    # httpd sends the target as written (RedirectMatch: but its $N captures and backslash escapes): a `$` is
    # no nginx variable
    target = ctx.model.literal_substitution(target) if regex else ctx.model.literal(target)
    written = path
    if regex and "$0" in target:
        whole = _whole_match(path, target)
        if whole is None:
            ctx.diags.add("A2N101", f"{d.name} {path}: its target reads the whole match ($0), which nginx has no "
                          "variable for, and the expression cannot be wrapped in a capture (a backreference, or "
                          "nine captures already): the URLs it matches are refused (403)", d.span, directive=d.name)
            status, target = 403, ""
        else:
            path, target = whole
    ctx.server.routes.append(Route("redirect", path, target, status=status, regex=regex, span=d.span,
                                   params={"directive": d.name}))
    path = written
    if regex:
        ctx.diags.add("A2N401", f"{d.name} {path}: regular-expression locations are tried in order after prefix "
                      "ones; check that no other location takes these requests first", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


def _whole_match(regex: str, target: str) -> tuple[str, str] | None:
    """REGEX and TARGET (the nginx form of a RedirectMatch's target) with the whole match a capture of its own:
    ap_pregsub reads `$0` as the whole match (observed: httpd 2.4 redirects /zero/z by `^/zero/(.*)$` to
    `http://x.example.com/$0` as http://x.example.com//zero/z), nginx has no `$0`. The expression is wrapped
    in a group ahead of its own (an inline `(?i)` stays first), which become $2..$9. None where it holds a
    backreference (its number would move) or nine captures (nginx reads $1..$9), or Python's re cannot
    count its groups."""
    if re.search(r"\\[1-9]|\\[gk]|\(\?P=", regex):
        return None
    try:
        if re.compile(regex).groups >= 9:
            return None
    except (re.error, OverflowError):
        return None
    flags = "(?i)" if regex.startswith("(?i)") else ""
    wrapped = flags + "(" + regex[len(flags):] + ")"
    return wrapped, re.sub(r"\$([0-9])", lambda m: f"${int(m.group(1)) + 1}", target)


def _redirect_in_section(ctx: Context, d: Directive, status: int, rest: list[str]) -> Disposition:
    """A Redirect in a <Location>, <Directory> or .htaccess. Without a path it is the section's fixed answer
    (mod_alias redirect_status): httpd answers every request there with that status, as `return` does where
    it is no redirect (`Redirect 403`, `Redirect gone`). A RedirectMatch with such a status answers the
    requests its regular expression matches (fixup_redir). Other forms are not translated: the section is
    refused (403) rather than served, since httpd never serves its files."""
    if not 300 <= status < 400 and (not rest or d.key == "redirectmatch" and len(rest) == 1):
        if not rest:
            ctx.emit("return", [str(status)], d.span)
            return Disposition.EXACT
        if httpd_refuses(rest[0]) is None:
            from ..emit.layout import _quote_if_needed
            ctx.emit("if", [f"($uri ~ {_quote_if_needed(rest[0])})"], d.span,
                     block=[Stmt("return", [str(status)], d.span)])
            return Disposition.EXACT
    ctx.emit("return", ["403"], d.span).comment = "a redirect that is not translated: refused"
    ctx.diags.add("A2N101", f"{d.name} {' '.join(d.args)}: this form is not translated inside a section; the "
                  "translation refuses the section's requests (403)", d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def alias(ctx: Context, d: Directive) -> Disposition:
    if ctx.scope is not None:
        ctx.diags.add("A2N101", f"{d.name} inside <Location> is not translated yet", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if len(d.args) < 2:
        ctx.diags.add("A2N001", f"{d.name} needs a URL path and a directory", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    url, fs = d.args[0], clean_path(d.args[1])
    regex = d.key == "aliasmatch"
    if not regex and url.endswith("/") != fs.endswith("/"):
        ctx.diags.add("A2N402", f"Alias {url} {fs}: the trailing slashes differ; httpd maps {url}x to "
                      f"{fs}{'' if fs.endswith('/') else ''}x literally and so does the translation", d.span,
                      directive=d.name)
    if regex:
        ctx.diags.add("A2N403", f"AliasMatch {url}: check that no capture can contain '..' after a '/'", d.span,
                      directive=d.name)
    # httpd reads a `$` in the directory as itself (AliasMatch: but its $N captures); the layout writes the
    # target as NginxModel.literal does, since nginx's alias reads variables
    ctx.model.literal_but_captures(fs) if regex else ctx.model.literal(fs)
    ctx.server.routes.append(Route("alias", url, fs, regex=regex, span=d.span, params={"directive": d.name}))
    return Disposition.APPROXIMATE if regex else Disposition.EXACT


# Debian's fcgiwrap listens here (its systemd socket unit).
FCGIWRAP_SOCKET = "unix:/run/fcgiwrap.socket"


def script_alias(ctx: Context, d: Directive) -> Disposition:
    """ScriptAlias /url/ /dir/: every file under /dir/ runs as a CGI program. nginx runs none itself; the
    translation hands them to fcgiwrap (the first path segment after the prefix is the program, the rest its
    PATH_INFO, as httpd does for a flat cgi-bin)."""
    if d.key == "scriptalias" and ctx.scope is None and len(d.args) == 2 and d.args[0].endswith("/"):
        url, fs = d.args[0], clean_path(d.args[1])
        fs = fs if fs.endswith("/") else fs + "/"
        from ..model import MapBlock
        variable = ctx.model.new_variable("a2n_cgi_")
        # (a `$` of the directory is itself to httpd: the map's value reads variables)
        ctx.model.maps.append(MapBlock("$fastcgi_script_name", variable,
                                       [(f"~^{re.escape(url)}(.*)$", ctx.model.literal(fs) + "$1")], '""',
                                       span=d.span))
        ctx.server.routes.append(Route("alias", url, fs, span=d.span,
                                       params={"directive": d.name, "cgi": variable}))
        ctx.diags.add("A2N406", f"{d.name} {url}: the programs run through fcgiwrap at "
                      f"{FCGIWRAP_SOCKET.removeprefix('unix:')} (install and start it); a program in a subdirectory "
                      f"of {d.args[1]} is not found, and a missing one answers 403 (fcgiwrap) instead of httpd's 404",
                      d.span, directive=d.name, hint="apt-get install fcgiwrap (it listens on /run/fcgiwrap.socket)")
        return Disposition.APPROXIMATE
    # httpd answers these URLs with the program's output or with the target directory's refusal; nginx would
    # serve the document root's files there (the program's source, or a file past its access rules): refused
    if ctx.scope is None and len(d.args) >= 2:
        url, fs = d.args[0], clean_path(d.args[1])
        regex = d.key == "scriptaliasmatch"
        if regex and httpd_refuses(url) is not None:
            ctx.diags.add("A2N001", f"{d.name} {url}: regular expression could not be compiled "
                          f"({httpd_refuses(url)}); httpd refuses the configuration", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        ctx.server.routes.append(Route("alias", url, fs, regex=regex,
                                       span=d.span, params={"directive": d.name, "refused": CGI_REFUSAL}))
    elif ctx.scope is not None:
        ctx.emit("return", ["403"], d.span).comment = CGI_REFUSAL
    ctx.diags.add("A2N404", f"{d.name}: nginx runs no CGI programs; serve them through a FastCGI wrapper "
                  "(fcgiwrap) by hand. The translation refuses these URLs (403) rather than serve the document "
                  "root's files there", d.span, directive=d.name)
    return Disposition.UNSUPPORTED


CGI_REFUSAL = "CGI programs httpd runs here are not translated: refused"


RULES = table(
    Rule("Redirect", Disposition.EXACT, redirect),
    Rule("RedirectPermanent", Disposition.EXACT, redirect),
    Rule("RedirectTemp", Disposition.EXACT, redirect),
    Rule("RedirectMatch", Disposition.APPROXIMATE, redirect),
    Rule("Alias", Disposition.EXACT, alias),
    Rule("AliasMatch", Disposition.APPROXIMATE, alias),
    Rule("ScriptAlias", Disposition.APPROXIMATE, script_alias),
    Rule("ScriptAliasMatch", Disposition.UNSUPPORTED, script_alias),
)
