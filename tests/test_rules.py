"""`patchkit explain` texts are true: each rule's example makes the analyzer report that code."""
from __future__ import annotations

import textwrap

import pytest

from patchkit.analysis import Settings, analyse_source
from patchkit.analysis.messages import CODES
from patchkit.rules import RULES, matching
from patchkit.ftypes import UsageError


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
