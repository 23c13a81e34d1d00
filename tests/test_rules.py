"""`patchkit explain` texts are true: each rule's example makes the analyzer report that code."""
from __future__ import annotations

import textwrap

import pytest

from patchkit.analysis import Settings, analyse_source
from patchkit.analysis.rules import CODES
from patchkit.registry import checks
from patchkit.ftypes import UsageError
from patchkit.rules import RULES, matching

checks()  # the built-in check's rules join the table


@pytest.mark.parametrize("code", [c for c in RULES if c not in ("PK900", "PK901")])
def test_example_triggers_its_code(code):
    r = RULES[code]
    found = analyse_source("example.py", textwrap.dedent(r.example), settings=Settings(show_info=True))
    assert code in {f.code for f in found}, [str(f) for f in found]
    assert any(f.severity.value == r.level for f in found if f.code == code)


def test_could_not_analyse_example_does_not_parse():
    with pytest.raises(SyntaxError):
        compile(textwrap.dedent(RULES["PK900"].example), "x.py", "exec")


def test_every_analyzer_code_is_documented():
    assert set(CODES) <= set(RULES)


def test_prefix_matching():
    assert matching(["PK00"], "--select") == {c for c in RULES if c.startswith("PK00")}
    assert matching(["ALL"], "--select") == set(RULES)
    with pytest.raises(UsageError, match="did you mean 'PK003'"):
        matching(["PK03"], "--ignore")


def test_the_budget_rule_example_is_cut_short_by_a_tiny_budget():
    """PK901 appears only past the per-file budget: give the example a budget of one state."""
    found = analyse_source("example.py", textwrap.dedent(RULES["PK901"].example),
                           settings=Settings(show_info=True, budget_steps=1))
    assert any(f.code == "PK901" for f in found)
    assert not any(f.code == "PK901" for f in analyse_source("example.py", textwrap.dedent(RULES["PK901"].example),
                                                             settings=Settings(show_info=True)))


def test_every_rule_is_one_unit_with_its_docs_message_and_examples():
    """The analyzer's rules come from their units (patchkit/analysis/rules/pkNNN_*.py), each with a
    message template and, for the judged codes, examples whose invalid cases report that code."""
    from patchkit.analysis import rules as units
    assert [r.code for r in units.ALL] == sorted(CODES) and all(RULES[r.code] is r for r in units.ALL)
    for r in units.ALL:
        assert r.message and r.summary and r.fix
        if r.code not in ("PK900", "PK901"):
            assert r.invalid, r.code
            assert all(r.code in {c for c, _a in e.expect} for e in r.invalid), r.code
