"""Two facts about one name and literal values conflict exactly when no value satisfies both:
``x == "a"`` / ``x in ("a", "b")`` with either truth. A construction path where
``self.tokenizer in ("bpe", "gpt2")`` was false cannot reach a read under ``self.tokenizer ==
"bpe"`` (parlai's dictionary agents, labelled false positives of the value-guard family)."""
from __future__ import annotations

from hypothesis import given, strategies as st

from patchkit.analysis import analyse_source
from patchkit.analysis.severity import _literal_conflict

values = st.sampled_from(["a", "b", "c", "d", 1, 2])
universe = frozenset(["a", "b", "c", "d", 1, 2, "other"])
tests = st.one_of(
    values.map(lambda v: (f"x == {v!r}", frozenset([v]))),
    st.lists(values, min_size=1, max_size=3, unique=True).map(
        lambda vs: (f"x in {tuple(vs)!r}", frozenset(vs))),
    # `x not in S` holds for every value outside S (a review found it read as a name "x not")
    st.lists(values, min_size=1, max_size=3, unique=True).map(
        lambda vs: (f"x not in {tuple(vs)!r}", universe - frozenset(vs))),
)


@given(tests, st.booleans(), tests, st.booleans())
def test_a_conflict_is_exactly_an_empty_set_of_witnesses(t1, p1, t2, p2):
    (k1, s1), (k2, s2) = t1, t2
    if k1 == k2:
        return
    ok1 = s1 if p1 else universe - s1
    ok2 = s2 if p2 else universe - s2
    if _literal_conflict(k1, p1, k2, p2):
        assert not (ok1 & ok2)
    elif p1 or p2:
        assert ok1 & ok2


def test_different_names_never_conflict():
    assert not _literal_conflict("x == 'a'", True, "y == 'b'", True)
    assert not _literal_conflict("x == 'a'", True, "x in (a, b)", True)  # not literals


DICT = """
class Dict:
    def __init__(self, opt):
        self.tokenizer = opt.get('tok', 're')
        if self.tokenizer in ('bpe', 'gpt2'):
            self.bpe = object()

    def save(self):
        if self.tokenizer == {value!r}:
            return self.bpe
        return None
"""


def test_a_read_under_a_value_the_construction_test_covers_is_not_reported():
    assert not [f for f in analyse_source("m.py", DICT.format(value="bpe")) if f.attr == "bpe"]


def test_a_read_under_another_value_is_still_reported():
    assert [f for f in analyse_source("m.py", DICT.format(value="other")) if f.attr == "bpe"]
