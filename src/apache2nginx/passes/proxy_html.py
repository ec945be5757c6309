"""mod_proxy_html: rewriting the links inside proxied HTML pages.

httpd parses proxied HTML with libxml2 and rewrites the URLs in the elements
and attributes ProxyHTMLLinks/ProxyHTMLEvents declare, through ProxyHTMLURLMap.
nginx has no HTML parser: sub_filter replaces text anywhere in a response,
which is not the same filter. So ProxyHTMLEnable On is an error (A2N333), and
the filter's settings count as unsupported with it; where nothing turns the
filter on (the stock proxy-html.conf only declares the link tables) they have
no effect in httpd either and are not-applicable.
"""
from __future__ import annotations

from ..syntax.tree import Directive
from .base import Context, Disposition, flag, Rule, table

_SETTINGS = ("ProxyHTMLLinks", "ProxyHTMLEvents", "ProxyHTMLURLMap", "ProxyHTMLBufSize", "ProxyHTMLCharsetOut",
             "ProxyHTMLDoctype", "ProxyHTMLExtended", "ProxyHTMLFixups", "ProxyHTMLInterp", "ProxyHTMLMeta",
             "ProxyHTMLStripComments")
_NOT_ENABLED = "no ProxyHTMLEnable On in the input turns the HTML filter on, so it has no effect in httpd either"


def enable(ctx: Context, d: Directive) -> Disposition:
    if flag(d) != "on":
        return Disposition.EXACT     # the filter off: nginx passes proxied HTML through unchanged too
    ctx.diags.add("A2N333", "ProxyHTMLEnable On: nginx cannot rewrite the links inside proxied HTML; pages keep "
                  "the backend's URLs", d.span, directive=d.name,
                  hint="make the backend generate public URLs, or approximate with sub_filter per URL prefix")
    return Disposition.UNSUPPORTED


def setting(ctx: Context, d: Directive) -> Disposition:
    return Disposition.UNSUPPORTED if ctx.options.get("proxy_html") else Disposition.NOT_APPLICABLE


RULES = table(Rule("ProxyHTMLEnable", Disposition.EXACT, enable),
              *(Rule(name, Disposition.NOT_APPLICABLE, setting, note=_NOT_ENABLED) for name in _SETTINGS))
