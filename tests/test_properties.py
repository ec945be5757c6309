"""Property tests: the reader never raises, and well-formed input reads back exactly."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apache2nginx.diagnostics import Diagnostics, Severity
from apache2nginx.syntax.parser import parse_bytes

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data):
    diags = Diagnostics()
    parse_bytes("fuzz.conf", data, diags)
    for d in diags:
        assert d.span is None or d.span.line >= 1


_SYMBOLS = st.sampled_from(list("<>{}#!$%^*()[]:;=,.?/@|~&+-'\"\\ \t\r\n") + ["\\\n", "</", "<If", "\r\n"])


@SETTINGS
@given(st.lists(st.one_of(_SYMBOLS, st.text(max_size=5)), max_size=200))
def test_arbitrary_config_like_text_never_raises(parts):
    parse_bytes("fuzz.conf", "".join(parts).encode("utf-8", "replace"), Diagnostics())


_NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,15}", fullmatch=True)
_WORD = st.from_regex(r"[A-Za-z0-9_./:%{}\[\]^$*+?()=!@-]{1,12}", fullmatch=True).filter(lambda w: "\\" not in w)
_QUOTED = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='"\\\n\r'),
                  max_size=20)


@st.composite
def _directive(draw):
    args = draw(st.lists(st.one_of(_WORD.map(lambda w: (w, w)), _QUOTED.map(lambda q: (q, f'"{q}"'))), max_size=5))
    return (draw(_NAME), [value for value, _ in args]), " ".join(rendered for _, rendered in args)


@st.composite
def _config(draw, depth=0):
    items = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 3 and draw(st.booleans()):
            name = draw(_NAME)
            arg = draw(_WORD)
            children = draw(_config(depth + 1))
            items.append(("section", name, [arg], children))
        else:
            (name, args), rendered = draw(_directive())
            items.append(("directive", name, args, rendered))
    return items


def _render(items, indent=0) -> str:
    out = []
    pad = "  " * indent
    for item in items:
        if item[0] == "section":
            _, name, args, children = item
            out.append(f"{pad}<{name} {args[0]}>\n{_render(children, indent + 1)}{pad}</{name.upper()}>\n")
        else:
            _, name, args, rendered = item
            out.append(f"{pad}{name} {rendered}\n" if rendered else f"{pad}{name}\n")
    return "".join(out)


def _shape(items):
    return [(i[1], i[2], _shape(i[3])) if i[0] == "section" else (i[1], i[2]) for i in items]


def _tree(nodes):
    return [(n.name, n.args, _tree(n.children)) if n.is_section else (n.name, n.args) for n in nodes]


@SETTINGS
@given(_config())
def test_well_formed_configs_read_back_exactly(items):
    text = _render(items)
    diags = Diagnostics()
    cf = parse_bytes("gen.conf", text.encode(), diags)
    assert not diags.at_least(Severity.WARNING), (text, [d.message for d in diags])
    assert _tree(cf.children) == _shape(items)


_TEXT_PIECES = st.lists(st.text(alphabet="ab \n", max_size=12), max_size=8)


@SETTINGS
@given(_TEXT_PIECES, st.booleans())
def test_output_joined_in_pieces_reads_as_the_whole_text(pieces, full):
    """The renderer finishes a large output piece by piece (blank-line runs collapsed, no blank lines
    around, the header first): the result is what finishing the whole text at once gives."""
    from apache2nginx.emit.render import _finish, _finish_pieces
    assert _finish_pieces(list(pieces), "# header", full) == _finish("".join(pieces), "# header", full)


@SETTINGS
@given(st.text(alphabet="ab \n", max_size=40))
def test_indent_reads_as_jinja_indent(text):
    """The renderer's indentation of a full nginx.conf's http body is jinja's indent filter (four spaces,
    the first line always, blank lines left empty)."""
    from jinja2.filters import do_indent
    from apache2nginx.emit.render import _indent
    expected = do_indent(text, 4, first=True, blank=False)
    # jinja keeps a text's final line break; ours keeps every line break as it is
    assert _indent(text) == expected + ("\n" if text.endswith("\n") and not expected.endswith("\n") else "")
