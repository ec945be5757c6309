"""The registry's declarations: every code has one, each effect names a field verify compares (or `directive`
or `*`), a change and known conditions, and the broad forms are kept for what they are meant for."""
from __future__ import annotations

import re

import pytest

from apache2nginx.codes import CODES, explains, lookup
from apache2nginx.code_effects import DECLARED
from apache2nginx.effects import CHANGES, CONDITIONS, MODULE_FIELDS, Effect, declaration_json, directive_effects

# Fields `verify` compares (verify/compare.py), besides the special `directive` and `*`.
_FIELD = re.compile(r"^(status|location|body|connection|backend|backend method|backend path|backend query"
                    r"|backend header( [a-z0-9-]+)?|header( [a-z0-9-]+)?)$")
_ALWAYS_PRESENT = ("status", "backend path", "backend method")

# Codes whose subject is a whole directive left out (or not honoured where it stands): the generic errors,
# an undefined ${VAR} (its directive is left out of the translation; httpd keeps the text) and the
# proxy/alias ones that drop a ProxyPass or ProxyRequests entirely.
DIRECTIVE_CODES = {"A2N022", "A2N100", "A2N101", "A2N103", "A2N302", "A2N303", "A2N317"}
# Whole sections whose directives are all missing, with consequences nobody can bound.
EVERYTHING_CODES = {"A2N233", "A2N740", "A2N741"}


def test_every_registered_code_has_a_declaration():
    assert set(DECLARED) == set(CODES)
    for code in CODES:
        assert isinstance(DECLARED[code], tuple), code
        assert all(isinstance(e, Effect) for e in DECLARED[code]), code


@pytest.mark.parametrize("code", sorted(DECLARED))
def test_every_effect_is_well_formed(code):
    for e in DECLARED[code]:
        assert e.field in ("directive", "*") or _FIELD.match(e.field), (code, e)
        assert e.change in CHANGES, (code, e)
        assert all(c in CONDITIONS for c in e.when), (code, e)
        assert len(set(e.when)) == len(e.when), (code, e)
        if e.field in _ALWAYS_PRESENT:
            assert e.change in ("changed", "any"), (code, e)     # these fields are never missing or added


def test_directive_and_everything_are_kept_for_whole_directives_and_sections():
    uses_directive = {c for c, effs in DECLARED.items() if any(e.field == "directive" for e in effs)}
    uses_everything = {c for c, effs in DECLARED.items() if any(e.field == "*" for e in effs)}
    assert uses_directive == DIRECTIVE_CODES
    assert uses_everything == EVERYTHING_CODES
    for code in uses_directive | uses_everything:
        assert lookup(code).severity in ("error", "warning"), code
        assert len(DECLARED[code]) == 1, code       # nothing narrower beside the catch-all


def test_loading_lint_and_log_codes_explain_nothing():
    for code in CODES:
        family = code[3]
        if code == "A2N022":
            continue    # found while loading, but what it leaves out is left out of the translation only
        if family in "09" or code.startswith("A2N6"):
            assert explains(code) == (), code


def test_notes_explain_nothing_unless_they_state_a_difference():
    stating = {"A2N226", "A2N339", "A2N338", "A2N405", "A2N510", "A2N713", "A2N237", "A2N852", "A2N345"}
    for code, info in CODES.items():
        if info.severity == "info":
            assert bool(explains(code)) == (code in stating), code


def test_the_coarse_family_table_is_gone():
    # the old table let every header code explain any header and every core/proxy warning explain anything
    assert all(e.when for e in explains("A2N503"))
    assert {e.field for e in explains("A2N320")} == {"backend header host"}
    assert explains("A2N301") == ()
    assert {e.field for e in explains("A2N215")} == {"header content-type"}
    assert all("proxied" in e.when for e in explains("A2N709"))


def test_declaration_json_lists_each_effect():
    assert declaration_json("A2N320") == [{"field": "backend header host", "change": "any", "when": []}]
    assert declaration_json("A2N001") == []
    assert {"field": "header", "change": "missing", "when": ["proxied", "error-status"]} in declaration_json("A2N503")
    with pytest.raises(KeyError):
        declaration_json("A2N999")


def test_directive_resolves_to_the_module_of_the_directive():
    assert directive_effects("Header") == MODULE_FIELDS["mod_headers.c"]
    assert directive_effects("CustomLog") == ()
    assert directive_effects(None) == directive_effects("NoSuchDirective") == (Effect("*"),)
