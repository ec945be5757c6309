"""How httpd merges mod_rewrite's per-directory configuration across <Directory> sections.

httpd merges the <Directory> sections that cover a file shallowest first (sections of the same path in
configuration order, the main server's before a virtual host's), over the server's own per-directory
defaults, with mod_rewrite's config_perdir_merge (mod_rewrite.c):

- the engine state (RewriteEngine) is inherited from the sections before unless a section sets its own; a
  server-context RewriteEngine sets the server's defaults too (cmd_rewriteengine), so a <Directory> holding
  rules but no RewriteEngine runs them under the engine of its parent directories or of its server;
- the rules are the last section's (of those with mod_rewrite directives): a later <Directory> of the same
  path replaces an earlier one's rules (RewriteOptions Inherit, which would append them, is refused
  elsewhere), even with no rules of its own.

A section with no mod_rewrite directive has no configuration of the module and leaves everything as it
was (the layout carries a parent's rules into it). This module decides, per server, which directory
contexts' rules run at all and under which engine setting.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .rewrite_model import RewriteContext


def _plain(state: RewriteContext) -> str | None:
    """The directory path of a plain <Directory> context (no regex, no wildcard), without a trailing slash."""
    if not state.literal or state.directory is None or not state.directory.startswith("/") or \
            re.search(r"[*?\[]", state.directory):
        return None
    return state.directory.rstrip("/")


def _covers(directory: str, path: str) -> bool:
    return path == directory or path.startswith(directory + "/") or not directory


def effective(states: list[RewriteContext], server_engines: list[tuple[bool, object]]
              ) -> tuple[list[tuple[RewriteContext, RewriteContext]], list[tuple[RewriteContext, RewriteContext]]]:
    """STATES in merge order within a depth (the main server's, then the virtual host's, each in configuration
    order); SERVER_ENGINES the server-context RewriteEngine settings (value, span), the main server's first.
    Returns (kept, replaced): kept pairs each context with the one its rules run under (the engine as
    merged; the same object where nothing changes), replaced pairs a context whose rules a later section of
    the same directory replaces with that section's context."""
    kept, replaced = [], []
    paths = [_plain(s) for s in states]
    for i, state in enumerate(states):
        path = paths[i]
        if path is None:
            kept.append((state, state))
            continue
        later = next((states[j] for j in range(i + 1, len(states)) if paths[j] == path), None)
        if later is not None:
            replaced.append((state, later))
            continue
        if state.engine is not None:
            kept.append((state, state))
            continue
        engine, span = None, None
        for value, where in server_engines:
            if value is not None:
                engine, span = value, where
        # the sections covering this one, shallowest first (a stable sort keeps the order within a depth)
        chain = sorted((j for j in range(len(states)) if paths[j] is not None and _covers(paths[j], path)
                        and (paths[j] != path or j < i)), key=lambda j: paths[j].count("/") + (paths[j] != ""))
        for j in chain:
            if states[j].engine is not None:
                engine, span = states[j].engine, states[j].engine_span
        kept.append((state, state if engine is None else replace(state, engine=engine, engine_span=span)))
    return kept, replaced
