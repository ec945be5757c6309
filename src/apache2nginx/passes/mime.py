"""mod_mime, mod_autoindex cosmetics and mod_setenvif's browser workarounds (its other variables: setenvif).

Directives that shape directory listings (icons, descriptions, ignored names)
matter only where Options Indexes enables listings: then nginx's autoindex,
which has none of them, is a plain list (approximate: the listing is served, a
warning each says what it loses; unsupported with an error for IndexIgnore,
whose hidden names nginx lists), else they are not-applicable as in httpd. IndexOptions FancyIndexing is approximated: nginx's listing shows the
same local times and rounded sizes. The old-browser workarounds BrowserMatch sets (nokeepalive for MSIE,
downgrade-1.0) concern clients that no longer exist: not-applicable, with
notes. Everything that changes responses for current clients is reported.
"""
from __future__ import annotations

from ..model import MapBlock, Stmt
from ..syntax.tree import Directive
from . import contexts
from .base import Context, Disposition, flag, Rule, table
from .setenvif import set_env_if

_NO_LISTINGS = "no Options Indexes in the input enables directory listings, so it has no effect in httpd either"
WORKAROUND_VARS = {"nokeepalive", "ssl-unclean-shutdown", "downgrade-1.0", "force-response-1.0",
                   "redirect-carefully", "gzip-only-text/html", "no-gzip", "suppress-error-charset"}


def finish_server(ctx: Context, server) -> None:
    """The server-level guards of what httpd refuses before any configuration applies."""
    _encoded_slash_guard(ctx, server)
    _host_guard(ctx, server)


# A Host header httpd takes (vhost.c fix_hostname with HttpProtocolOptions Strict, the default): a name of
# letters, digits, '-', '_' and single dots whose last label starts with a letter, or a dotted-decimal
# address of four numbers without leading zeroes, or a bracketed IPv6 address; one trailing dot; an optional
# port of 1-65535 (leading zeroes allowed). Anything else is answered 400.
_PORT = r"(:0*([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
_DECIMAL = r"(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)){3}"
_NAME = r"[0-9]*[a-z_-][a-z0-9_-]*|\.?([a-z0-9_-]+\.)*[a-z][a-z0-9_-]*"
_VALID_HOST = rf"~*^(({_NAME}|{_DECIMAL})\.?|\[[0-9a-f:.]+\]){_PORT}$"


def _host_guard(ctx: Context, server) -> None:
    """httpd answers 400 to a Host header it finds malformed before it picks a virtual host: an empty or
    doubled port, a backslash, '%', '@', ',' or any character but letters, digits, '-', '_' and '.', a
    top-level label not starting with a letter, a bare number, a dotted-decimal address that is not four
    numbers without leading zeroes. nginx takes all of these (it refuses only '/', '..' and a few more) and
    serves the request from the default server or the one the name selects, so every server keeps httpd's
    refusal. The guard clears its variable as the encoded-slash guard does, for an ErrorDocument 400."""
    if not ctx.model.has_map("$a2n_bad_host"):
        ctx.model.maps.append(MapBlock("$http_host", "$a2n_bad_host", [('""', "0"), (_VALID_HOST, "0")], "1"))
    server.own_statements.insert(0, Stmt("if", ["($a2n_bad_host)"], None,
                                         block=[Stmt("set", ["$a2n_bad_host", "0"], None),
                                                Stmt("return", ["400"], None)],
                                         comment="httpd refuses a malformed Host header"))


def _encoded_slash_guard(ctx: Context, server) -> None:
    """httpd answers 404 to a path containing an encoded slash (AllowEncodedSlashes Off, the default); nginx
    would decode it and serve or proxy the request, so every server keeps httpd's refusal. The guard clears its
    variable when it refuses: an ErrorDocument 404 (error_page) redirects internally, the server's rewrite phase
    runs again for the error page, and the guard must not refuse that too (nginx would send its own page,
    without the page's headers)."""
    setting = server.settings.get("allow_encoded_slashes") or ctx.main.settings.get("allow_encoded_slashes")
    if setting and setting[0] != "off":
        return
    if not ctx.model.has_map("$a2n_encoded_slash"):
        ctx.model.maps.append(MapBlock("$request_uri", "$a2n_encoded_slash", [("~*^[^?]*%2f", "1")], "0"))
    server.own_statements.insert(0, Stmt("if", ["($a2n_encoded_slash)"], None,
                                         block=[Stmt("set", ["$a2n_encoded_slash", "0"], None),
                                                Stmt("return", ["404"], None)],
                                         comment="httpd refuses %2F in paths (AllowEncodedSlashes Off)"))


def _listing_setting(ctx: Context, d: Directive) -> Disposition:
    """A mod_autoindex setting: lost in nginx's plain listings, if the input has any."""
    if not ctx.options.get("listings"):
        return Disposition.NOT_APPLICABLE
    if d.key == "indexignore":
        shown = [a for a in d.args if not a.startswith(".")]
        if not shown:
            return Disposition.EXACT   # nginx's autoindex never lists names starting with a dot either
        ctx.diags.add("A2N236", f"IndexIgnore {' '.join(shown)}: nginx's autoindex lists these names (it hides "
                      "only names starting with a dot)", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if d.key == "indexoptions":
        return _index_options(ctx, d)
    ctx.diags.add("A2N235", f"{d.name}: nginx's autoindex listings have no such setting; its effect on listings "
                  "is lost", d.span, directive=d.name)
    return Disposition.APPROXIMATE   # the listing itself is served; only how it looks differs


def _index_options(ctx: Context, d: Directive) -> Disposition:
    """IndexOptions FancyIndexing: httpd's fancy listing shows each file's modification time (local time) and
    its size rounded (`1.3K`, `4.3M`); nginx's autoindex shows both too, rounded and local with these two
    settings. Its layout (a <pre> list, no column sorting, icons or description column) stays nginx's own.
    Without FancyIndexing httpd lists names only, which nginx cannot."""
    options = [a.lower() for a in d.args]
    fancy = any(o.lstrip("+") == "fancyindexing" for o in options)
    rest = [a for a in d.args if a.lower().lstrip("+-") != "fancyindexing"]
    if not fancy:
        ctx.diags.add("A2N235", f"IndexOptions {' '.join(d.args)}: without FancyIndexing httpd lists names only; "
                      "nginx's autoindex always shows times and sizes, and has none of these settings", d.span,
                      directive=d.name)
        return Disposition.APPROXIMATE
    ctx.emit("autoindex_exact_size", ["off"], d.span)
    ctx.emit("autoindex_localtime", ["on"], d.span)
    ctx.diags.add("A2N235", "IndexOptions FancyIndexing: nginx's autoindex shows the local times and rounded sizes "
                  "too, though sizes under 10K in bytes and larger ones in whole K/M/G (httpd: `1.3K`), in its "
                  "own layout (a plain list: no column sorting, icons or descriptions)"
                  + (f"; {' '.join(rest)} has no nginx setting" if rest else ""), d.span, directive=d.name)
    return Disposition.APPROXIMATE


def browser_match(ctx: Context, d: Directive) -> Disposition:
    assignments = d.args[1:] if d.key.startswith("browsermatch") else d.args[2:]
    names = {a.split("=", 1)[0].lstrip("!").lower() for a in assignments}
    if names and names <= WORKAROUND_VARS:
        ctx.diags.add("A2N102", f"{d.name}: a workaround for obsolete browsers ({', '.join(sorted(names))}); nginx "
                      "needs none (keepalive_disable msie6 is its default)", d.span, directive=d.name)
        return Disposition.NOT_APPLICABLE
    if d.key.startswith("browsermatch"):
        attribute, regex = "User-Agent", d.args[0] if d.args else ""
    else:
        attribute, regex = (d.args[0], d.args[1]) if len(d.args) >= 2 else ("", "")
    real = [a for a in assignments if a.split("=", 1)[0].lstrip("!").lower() not in WORKAROUND_VARS]
    if not attribute or not regex or not real:
        ctx.diags.add("A2N001", f"{d.name} needs an attribute, a regular expression and a variable", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    return set_env_if(ctx, d, real, attribute, regex, nocase=d.key.endswith("nocase"))


def file_etag(ctx: Context, d: Directive) -> Disposition:
    values = [a.lower().lstrip("+") for a in d.args]
    if values == ["none"]:
        ctx.emit("etag", ["off"], d.span)
        return Disposition.EXACT
    ctx.emit("etag", ["on"], d.span)
    ctx.diags.add("A2N710", f"FileETag {' '.join(d.args)}: nginx's ETag is always built from modification time "
                  "and size", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def allow_encoded_slashes(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    ctx.settings["allow_encoded_slashes"] = (value, d.span)
    if value == "on":
        return Disposition.EXACT   # nginx decodes %2F too
    if value == "off":
        return Disposition.EXACT   # httpd's default: the 404 guard every server gets
    ctx.diags.add("A2N711", f"AllowEncodedSlashes {d.args[0] if d.args else ''}: nginx always decodes %2F in "
                  "the path; httpd " + ("404s such requests" if value == "off" else "keeps %2F encoded"), d.span,
                  directive=d.name, hint="match $request_uri for %2F and return 404 to keep httpd's refusal")
    return Disposition.UNSUPPORTED


RULES = table(
    *(Rule(name, Disposition.NOT_APPLICABLE, _listing_setting, note=_NO_LISTINGS) for name in (
        "AddIcon", "AddIconByType", "AddIconByEncoding", "AddAlt", "AddAltByType", "AddAltByEncoding",
        "AddDescription", "DefaultIcon", "HeaderName", "ReadmeName", "IndexOptions", "IndexOrderDefault",
        "IndexStyleSheet", "IndexHeadInsert", "IndexIgnoreReset", "IndexIgnore")),
    Rule("BrowserMatch", Disposition.NOT_APPLICABLE, browser_match),
    Rule("BrowserMatchNoCase", Disposition.NOT_APPLICABLE, browser_match),
    Rule("SetEnvIf", Disposition.NOT_APPLICABLE, browser_match),
    Rule("SetEnvIfNoCase", Disposition.NOT_APPLICABLE, browser_match),
    Rule("FileETag", Disposition.EXACT, file_etag),
    Rule("AllowEncodedSlashes", Disposition.EXACT, allow_encoded_slashes),
    Rule("AddLanguage", Disposition.NOT_APPLICABLE, note="languages matter only for content negotiation "
         "(MultiViews), which nginx does not do"),
    Rule("RemoveLanguage", Disposition.NOT_APPLICABLE, note="languages matter only for content negotiation "
         "(MultiViews), which nginx does not do"),
    Rule("LanguagePriority", Disposition.NOT_APPLICABLE, note="content negotiation (MultiViews) has no nginx "
         "equivalent"),
    Rule("ForceLanguagePriority", Disposition.NOT_APPLICABLE, note="content negotiation has no nginx equivalent"),
    Rule("DefaultLanguage", Disposition.NOT_APPLICABLE, note="nginx sends no Content-Language by default"),
)


RULES = contexts.checked(RULES)
