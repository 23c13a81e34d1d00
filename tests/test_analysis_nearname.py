"""A read that misspells a name the class defines is reported even where a base the analyzer cannot
read could otherwise have provided it (nearname.py). keras 3.2.1's ``RandomBrightness`` reads
``self.value_range_VALIDATION_ERROR`` for its own ``_VALUE_RANGE_VALIDATION_ERROR`` (rel_51 of the
recall corpus); its base lies in tensorflow, so the read was dropped by default."""
from __future__ import annotations

import string

from hypothesis import given, strategies as st

from patchkit.analysis import analyse_source
from patchkit.analysis.nearname import misspelling, near

letters = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6)
ident = st.lists(letters, min_size=1, max_size=4).map("_".join)
long_word = st.text(alphabet=string.ascii_lowercase, min_size=8, max_size=16)


@given(ident, ident)
def test_near_is_symmetric(a, b):
    assert near(a, b) == near(b, a)


@given(ident, st.integers(1, 2))
def test_a_leading_underscore_alone_is_not_a_misspelling(a, n):
    # `self.name` over `self._name`: a library base's property over its private field
    assert not near(a, "_" * n + a)
    assert not near("_" * n + a, a)
    assert not near(a, f"__{a}__")  # modelscope's `self.iter` (the datasets base's) next to __iter__


@given(ident)
def test_another_style_of_the_same_name_is_the_library_s_other_spelling(a):
    # mmengine's METAINFO constant and metainfo property; pycocotools' getAnnIds and get_ann_ids
    assert not near(a, a.upper())
    parts = a.split("_")
    camel = parts[0] + "".join(p.capitalize() for p in parts[1:])
    assert not near(camel, a) or camel == a


@given(ident)
def test_a_read_in_a_style_of_its_own_is_a_misspelling(a):
    if "_" not in a:
        return
    head, _, tail = a.partition("_")
    mixed = f"{head}_{tail.upper()}"  # value_range_VALIDATION_ERROR for _VALUE_RANGE_VALIDATION_ERROR
    assert near(mixed, "_" + a.upper())
    # words run together or apart are both common API names (setup / set_up, metadata / meta_data)
    assert not near(a.replace("_", ""), a)


@given(ident, st.integers(0, 9), st.integers(0, 9))
def test_a_different_digit_is_another_name(a, d1, d2):
    if d1 != d2:
        assert not near(f"{a}{d1}", f"{a}{d2}")


@given(long_word)
def test_a_letter_added_at_either_end_is_another_name(a):
    # tokenize / tokenizer, layer / layers: different names
    assert not near(a, a + "s")
    assert not near(a, "x" + a)


@given(long_word, st.data())
def test_two_adjacent_letters_swapped_inside_a_long_name_are_a_misspelling(a, data):
    i = data.draw(st.integers(0, len(a) - 2))
    if a[i] == a[i + 1]:
        return
    b = a[:i] + a[i + 1] + a[i] + a[i + 2:]
    assert near(a, b)


@given(long_word, st.data())
def test_one_substituted_letter_is_another_name(a, data):
    i = data.draw(st.integers(0, len(a) - 1))
    c = data.draw(st.sampled_from([x for x in string.ascii_lowercase if x != a[i]]))
    assert not near(a, a[:i] + c + a[i + 1:])


def test_misspelling_picks_a_known_name_deterministically():
    assert misspelling("optimzer_state", ["optimizer_state", "scheduler"]) == "optimizer_state"
    assert misspelling("value_range_VALIDATION_ERROR", {"_VALUE_RANGE_VALIDATION_ERROR", "value_range"}) == \
        "_VALUE_RANGE_VALIDATION_ERROR"
    assert misspelling("model_dir", ["model_dim"]) is None


UNREADABLE_BASE = '''
from not_installed_framework import Layer

class Encoder(Layer):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.dropout_rate = 0.1

    def call(self, x):
        return x * {read}
'''


def _got(src):
    return {(f.code, f.attr, f.severity.value) for f in analyse_source("m.py", src)}


def test_a_misspelled_read_under_an_unreadable_base_is_an_error():
    got = _got(UNREADABLE_BASE.format(read="self.hiden_size"))
    assert ("PK003", "hiden_size", "error") in got
    got = _got(UNREADABLE_BASE.format(read="self.dropuot_rate"))
    assert ("PK003", "dropuot_rate", "error") in got


def test_other_unassigned_reads_under_an_unreadable_base_stay_quiet():
    for read in ("self.trainable", "self.name", "self.hidden_sizes", "self.dropout_rates",
                 "self.hiddenSize", "self.HIDDEN_SIZE"):  # the library's other spellings (mmdet, pycocotools)
        assert _got(UNREADABLE_BASE.format(read=read)) == set(), read


def test_the_finding_names_the_near_twin():
    fs = [f for f in analyse_source("m.py", UNREADABLE_BASE.format(read="self.hiden_size")) if f.attr == "hiden_size"]
    assert fs and "self.hidden_size" in fs[0].why and fs[0].hint == "did you mean self.hidden_size?"


def test_a_subclass_that_provides_the_name_keeps_the_base_quiet():
    src = UNREADABLE_BASE.format(read="self.hiden_size") + '''
class Wide(Encoder):
    def __init__(self):
        super().__init__(4)
        self.hiden_size = 8
'''
    assert ("PK003", "hiden_size", "error") not in _got(src)


def test_a_name_handed_to_the_unreadable_initialiser_is_no_misspelling():
    src = UNREADABLE_BASE.replace("super().__init__()", "super().__init__(hiden_size=hidden_size)").format(
        read="self.hiden_size")
    assert ("PK003", "hiden_size", "error") not in _got(src)


mixed_ident = st.text(alphabet=string.ascii_letters + "_12", min_size=1, max_size=14)


def _variants(a: str, i: int, c: str) -> list:
    """Names near ``a`` or almost: a letter added, dropped or swapped at ``i``, another case, an
    underscore inside."""
    i = i % (len(a) + 1)
    return [a[:i] + c + a[i:], a[:i] + a[i + 1:], a[:i] + a[i + 1:i + 2] + a[i:i + 1] + a[i + 2:],
            a.upper(), a.swapcase(), a[:i] + "_" + a[i:], "_" + a]


@given(mixed_ident, st.lists(mixed_ident, max_size=20), st.integers(0, 20), st.sampled_from("ab_1Z"))
def test_the_candidate_index_finds_what_a_scan_of_every_name_finds(attr, others, i, c):
    # misspelling only tries names of a neighbouring length or the same letters: the first near
    # name of the sorted whole set is the same
    known = others + _variants(attr, i, c)
    by_scan = next((k for k in sorted(set(known)) if near(attr, k)), None)
    assert misspelling(attr, known) == by_scan
