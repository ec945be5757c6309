"""Refresh the expected outputs of the fixture cases, showing every change.

    python3 tests/refresh_fixtures.py            # print the diffs, change nothing
    python3 tests/refresh_fixtures.py --write    # also rewrite expected.conf / expected-codes.txt
    python3 tests/refresh_fixtures.py [--write] CASE...   # only the named cases (directory names)

A refresh is a review: read each unified diff before committing the new
expectations, since they are what the test suite holds the translator to.
"""
from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fixture_cases import ROOT, case_dirs, convert_case  # noqa: E402


def main() -> int:
    write = "--write" in sys.argv
    only = {a for a in sys.argv[1:] if not a.startswith("--")}
    changed = 0
    for case in case_dirs():
        if only and case.name not in only:
            continue
        text, codes, _ = convert_case(case)
        for name, new in (("expected.conf", text), ("expected-codes.txt", "\n".join(codes) + "\n")):
            path = case / name
            old = path.read_text() if path.exists() else ""
            if old != new:
                changed += 1
                rel = path.relative_to(ROOT)
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                           f"a/{rel}", f"b/{rel}"))
                if write:
                    path.write_text(new)
    print(f"{changed} expected file(s) {'rewritten' if write else 'differ'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
