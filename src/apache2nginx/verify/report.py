"""How a verify run is told: the summary (counts, the explained share, differences per explaining code),
the text report that groups identical differences, and progress on a terminal."""
from __future__ import annotations

import sys
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


def text_report(differences: list[Difference], stats: dict, notes: list[str] = (), examples: int = 3) -> str:
    """One line per kind of difference (verdict or explaining code, field, the two values) with a count and
    the first requests that showed it, worst first; then the sandbox's notes and the summary."""
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
    line = (f"{stats['compared']} requests compared: {stats['same']} same, {stats['explained']} explained "
            f"({stats['explained_share']}%), {stats['unexplained']} unexplained")
    if stats["widened"] or stats["lost_security"]:
        line += f"; {stats['widened']} WIDENED ACCESS, {stats['lost_security']} LOST SECURITY HEADER"
    lines.append(line)
    if stats["explained_by_code"]:
        lines.append("differences explained, by code: " + ", ".join(f"{c} {n}" for c, n in stats["explained_by_code"].items()))
    return "\n".join(lines)


class Progress:
    """Stage and request counts on a terminal's stderr, one rewritten line; silent elsewhere."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.live = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, message: str, done: int | None = None, total: int | None = None) -> None:
        if not self.live:
            return
        count = f" {done}/{total}" if total else ""
        self.stream.write(f"\r\033[Kverify: {message}{count}")
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()
