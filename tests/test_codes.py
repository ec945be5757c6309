"""Every diagnostic code the source uses is registered, and every registered code is explained."""
from __future__ import annotations

import re
from pathlib import Path

import apache2nginx
from apache2nginx.codes import CODES


def test_every_code_used_in_the_source_is_registered():
    root = Path(apache2nginx.__file__).parent
    used = set()
    for path in root.rglob("*.py"):
        if path.name == "codes.py":
            continue
        used |= set(re.findall(r'"(A2N\d{3})"', path.read_text()))
    assert used, "no codes found"
    assert sorted(used - set(CODES)) == []


def test_explain_texts_have_three_parts_and_codes_are_well_formed():
    for code, info in CODES.items():
        assert re.fullmatch(r"A2N\d{3}", code)
        assert info.severity in ("error", "warning", "info")
        for part in ("What it means:", "Why it matters:", "How to fix it:"):
            assert part in info.explain, code
