"""The fast self-check reads nginx text exactly as crossplane does: same tokens, and it never calls clean a
text crossplane finds an error in (on every fixture output and on generated awkward inputs)."""
from __future__ import annotations

from itertools import chain

from crossplane.lexer import _lex_file_object
from hypothesis import given, settings, strategies as st

from apache2nginx.emit.render import crossplane_parse_text
from apache2nginx.emit.selfcheck import _Unsure, _tokens, fast_clean
from fixture_cases import case_dirs


def _crossplane_tokens(text: str) -> list[tuple[str, bool]]:
    import io
    return [(tok, quoted) for tok, _line, quoted in _lex_file_object(io.StringIO(text))
            if not (tok.startswith("#") and not quoted)]


def _crossplane_clean(text: str) -> bool:
    return not crossplane_parse_text(text, check=True)["errors"]


def _fast_tokens(text: str) -> list[tuple[str, bool]] | None:
    try:
        return list(chain.from_iterable(_tokens(text)))
    except _Unsure:
        return None


def test_fixture_outputs_tokenise_as_crossplane_does():
    for case in case_dirs():
        text = (case / "expected.conf").read_text()
        assert _fast_tokens(text) == _crossplane_tokens(text), case.name
        full = "events {" in text
        body = text if full else "events {}\nhttp {\n" + text + "\n}\n"   # as render.self_check wraps it
        assert fast_clean(body) is True and _crossplane_clean(body), case.name


ATOMS = st.sampled_from(["server", "location", "/p", "{", "}", ";", " ", "\n", "\t", '"a b"', "'c;d'", "#x\n",
                         "$var", "${v}", "\\", "\\;", '"', "'", "return", "200", "add_header", "X", "if", "(",
                         ")", "~", "^/a$", "map", "$uri", "default", "''", '""', "${", "a}b", "http", "events"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ATOMS, max_size=30))
def test_generated_text_never_clean_where_crossplane_finds_an_error(parts):
    text = "".join(parts)
    fast = _fast_tokens(text)
    if fast is not None:
        assert fast == _crossplane_tokens(text)
    if fast_clean(text):
        assert _crossplane_clean(text)
