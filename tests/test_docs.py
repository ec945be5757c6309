"""The documentation says what the code does: docs/diagnostics.md is the registry, and every
`apache2nginx` command line written in docs/ exists."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from apache2nginx import docgen
from apache2nginx.cli import main
from apache2nginx.codes import CODES
from conftest import ROOT, run_cli

PAGE = ROOT / "docs" / "diagnostics.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))


def test_diagnostics_page_is_in_sync_with_the_registry():
    assert PAGE.is_file(), f"docs/diagnostics.md is missing: run `{docgen.REFRESH}`"
    assert PAGE.read_text(encoding="utf-8") == docgen.generate(ROOT), \
        f"docs/diagnostics.md is out of date: run `{docgen.REFRESH}` and commit it"


def test_docgen_check_mode(tmp_path: Path):
    out = tmp_path / "d.md"
    assert docgen.main(["--check", "--output", str(out)]) == 1
    assert docgen.main(["--output", str(out)]) == 0
    assert docgen.main(["--check", "--output", str(out)]) == 0
    out.write_text(out.read_text() + "edited\n")
    assert docgen.main(["--check", "--output", str(out)]) == 1


def _sections() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^### (A2N\d{3})\n", text, flags=re.M)
    return {code: body.split("\n## ")[0] for code, body in zip(parts[1::2], parts[2::2])}


def _plain(markdown: str) -> str:
    return " ".join(docgen.md_unescape(markdown.replace("**", "")).split())


def test_every_code_documented_once_with_its_parts():
    sections = _sections()
    assert sorted(sections) == sorted(CODES)
    for code, body in sections.items():
        info = CODES[code]
        assert f"**{info.severity}**" in body and f"`{info.name}`" in body, code
        assert "**How to fix it:**" in body or "How to fix" not in info.explain, code
        assert "**Example:**" in body, code


@pytest.mark.parametrize("code", sorted(CODES))
def test_explain_command_and_page_say_the_same(code: str):
    info = CODES[code]
    result = CliRunner().invoke(main, ["explain", code])
    assert result.exit_code == 0
    shown = " ".join(result.output.split())
    page = _plain(_sections()[code])
    for text in (info.summary, info.explain):
        flat = " ".join(text.split())
        assert flat in shown, f"explain {code} does not show the registry text"
    assert " ".join(info.summary.split()) in page
    for title, para in docgen.explain_parts(info):
        flat = " ".join(para.split())
        assert (f"{title}: {flat}" if title else flat) in page, f"{code}: the page lost part of the explanation"


def test_explain_as_a_process_matches_one_section():
    code = "A2N301"
    proc = run_cli("explain", code)
    assert proc.returncode == 0
    first = proc.stdout.splitlines()[0]
    assert first == f"{code} ({CODES[code].name}, {CODES[code].severity}): {CODES[code].summary}"


def test_examples_are_real_fixture_lines():
    for code, ex in docgen.find_examples(ROOT).items():
        source = (ROOT / ex.fixture / "apache.conf").read_text()
        assert ex.snippet in source, code
        expected = (ROOT / ex.fixture / "expected-codes.txt").read_text().split()
        assert f"{ex.line if ex.line else '-'}:{code}" in expected, code


# --------------------------------------------------------------------------- commands written in the docs

def _doc_commands() -> list[tuple[str, list[str]]]:
    """(doc name, argv) of every `apache2nginx ...` line in the docs' code blocks."""
    found = []
    for doc in DOCS:
        in_code = False
        for line in doc.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            stripped = re.sub(r"^\s*(?:\$\s+|-\s+|run:\s+|entry:\s+)?", "", line)
            if in_code and stripped.startswith("apache2nginx "):
                command = stripped.split(" #")[0].split(" |")[0].split(" >")[0].split(" &&")[0].split(" ||")[0]
                found.append((doc.name, shlex.split(command, comments=True)))
    return found


def test_docs_name_only_commands_and_options_that_exist():
    commands = _doc_commands()
    assert any(doc == "migration.md" for doc, _ in commands), "the migration guide shows the commands it uses"
    helps: dict[str, str] = {}
    for doc, argv in commands:
        sub = argv[1]
        if sub not in helps:
            result = CliRunner().invoke(main, [sub, "--help"])
            assert result.exit_code == 0, f"{doc}: `apache2nginx {sub}` is not a command"
            helps[sub] = result.output
        for arg in argv[2:]:
            option = arg.split("=")[0]
            if option.startswith("--") or re.fullmatch(r"-[a-z]", option):
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", helps[sub]), \
                    f"{doc}: `apache2nginx {sub}` has no option {option}"
