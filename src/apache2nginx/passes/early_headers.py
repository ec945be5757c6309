"""The request headers a `RequestHeader ... early` line changes, by virtual host.

httpd runs an early RequestHeader line when the request is read (post_read_request), so every later reader
(mod_setenvif, Require expr, RewriteCond) sees the changed header. The translation leaves such lines out
(A2N501); the readers of those headers refuse instead (access_cond, rewrite_compile). translate collects the
headers into the main server's settings; this module only reads them, so both readers can import it
without importing each other.
"""
from __future__ import annotations


def early_request_headers(model, server) -> set[str]:
    """The request headers (as nginx variable names) a `RequestHeader ... early` line of SERVER or the main
    server, which every host merges, changes before httpd's other modules read them (translate collects them)."""
    early = model.main_server.settings.get("early_request_headers", {}) if model.main_server is not None else {}
    own = early.get(server.span, set()) if server is not None and not server.is_main else set()
    return early.get(None, set()) | own
