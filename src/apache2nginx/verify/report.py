"""How a verify run is told: the summary (counts, the explained share, differences per explaining code),
the text report that groups identical differences, and progress on a terminal."""
from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict

from .compare import Difference


def summary(compared: int, same: int, differences: list[Difference]) -> dict:
    """Counts by request (a request with any unexplained difference is unexplained), the share of compared
    requests a diagnostic explained, and how many differences each code explained."""
    unexplained = {id(d.probe) for d in differences if not d.explanation}
    explained = {id(d.probe) for d in differences if d.explanation} - unexplained
    by_code = Counter(d.explanation for d in differences if d.explanation)
    return {
        "compared": compared, "same": same, "explained": len(explained), "unexplained": len(unexplained),
        "widened": len({id(d.probe) for d in differences if d.widened}),
        "lost_security": len({id(d.probe) for d in differences if d.lost_security}),
        "explained_share": round(100.0 * len(explained) / compared, 2) if compared else 0.0,
        "explained_by_code": dict(sorted(by_code.items())),
    }


def _shown(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def access_log_line(info: dict) -> str:
    """What was read from the access log and what of it was replayed, and why not the rest."""
    line = (f"access log: {info['lines']} lines read, {info['parsed']} requests, {info['distinct']} distinct, "
            f"{info['replayed']} replayed")
    if info["not_replayed"]:
        line += (f"; {info['not_replayed']} not replayed: at most {info['cap']} by default, taking turns across "
                 f"hosts, status classes, first path segments and paths (--all replays every one)")
    return line


def replay_line(replay: dict, compared: int) -> str:
    line = f"replayed {compared} requests on both servers in {replay['seconds']:.1f} s"
    if replay.get("compared_per_second"):
        line += f" ({replay['compared_per_second']:.0f}/s)"
    line += f", {replay['concurrency']} at a time"
    if replay.get("limited_by"):
        line += f" (limited by {replay['limited_by']})"
    return line


def text_report(differences: list[Difference], stats: dict, notes: list[str] = (), examples: int = 3,
                replay: dict | None = None) -> str:
    """One line per kind of difference (verdict or explaining code, field, the two values) with a count and
    the first requests that showed it, worst first; then the sandbox's notes, what the access log held and
    what of it was replayed, how the replay went, and the summary."""
    groups: dict[tuple, list[Difference]] = defaultdict(list)
    for d in differences:
        tag = d.verdict or (f"explained by {d.explanation}" if d.explanation else "UNEXPLAINED")
        groups[(tag, d.field, repr(d.apache), repr(d.nginx))].append(d)

    def rank(key: tuple) -> tuple:
        tag = key[0]
        return (0 if tag in ("WIDENED ACCESS", "LOST SECURITY HEADER") else 1 if tag == "UNEXPLAINED" else 2,
                -len(groups[key]), key)

    lines = []
    for key in sorted(groups, key=rank):
        tag, field_name = key[0], key[1]
        items = groups[key]
        first = items[0]
        requests = ", ".join(d.probe.line() for d in items[:examples])
        more = f" (+{len(items) - examples} more)" if len(items) > examples else ""
        lines.append(f"{tag:<22} {len(items):>4}x  {field_name}: apache {_shown(first.apache)}, "
                     f"nginx {_shown(first.nginx)}\n{'':<29}{requests}{more}")
    for note in notes:
        lines.append(f"note: {note}")
    if stats.get("access_log"):
        lines.append(access_log_line(stats["access_log"]))
    if replay:
        lines.append(replay_line(replay, stats["compared"]))
    line = (f"{stats['compared']} requests compared: {stats['same']} same, {stats['explained']} explained "
            f"({stats['explained_share']}%), {stats['unexplained']} unexplained")
    if stats["widened"] or stats["lost_security"]:
        line += f"; {stats['widened']} WIDENED ACCESS, {stats['lost_security']} LOST SECURITY HEADER"
    lines.append(line)
    if stats["explained_by_code"]:
        lines.append("differences explained, by code: " + ", ".join(f"{c} {n}" for c, n in stats["explained_by_code"].items()))
    return "\n".join(lines)


class Progress:
    """Stage and request counts (with the rate since the stage began) on a terminal's stderr, one rewritten
    line at most ten times a second; silent elsewhere."""

    def __init__(self, stream=None, clock=time.monotonic) -> None:
        self.stream = stream or sys.stderr
        try:
            self.live = bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.live = False
        self.clock = clock
        self.stage = ""
        self.began = 0.0
        self.shown = -1.0
        self.done: int | None = None

    def __call__(self, message: str, done: int | None = None, total: int | None = None) -> None:
        if not self.live:
            return
        now = self.clock()
        if message != self.stage:
            self.stage, self.began, self.shown = message, now, -1.0
        elif done == self.done or (now - self.shown < 0.1 and done != total):
            return
        self.shown, self.done = now, done
        count = ""
        if total:
            count = f" {done}/{total}"
            if done and now > self.began:
                count += f" ({done / (now - self.began):.0f}/s)"
        self.stream.write(f"\r\033[Kverify: {message}{count}")
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()
