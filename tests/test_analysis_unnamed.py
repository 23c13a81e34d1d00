"""unnamed.py: in a class that stores computed names after construction (a loader's
``setattr(self, name, value)``), a later read of a name no production file of the tree spells (as a
string, a keyword, a parameter or a store) is a warning; any spelling keeps the class open for it.
gensim 4.1.2's ``WmdSimilarity.__str__`` read ``self.w2v_model``, renamed to ``self.wv`` in 4.0."""
from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import given, settings, strategies as st

from patchkit.analysis.runner import analyse_paths
from patchkit.analysis.settings import Settings
from patchkit.analysis.unnamed import _spellings

BASE = '''
class SaveLoad:
    def _load_specials(self, names, values):
        for name, value in zip(names, values):
            setattr(self, name, value)
'''

SUB = '''
from pkg.base import SaveLoad


class Wmd(SaveLoad):
    def __init__(self, kv):
        self.wv = kv

    def __str__(self):
        return "%s %i" % (type(self).__name__, self.w2v_model.size)

    def size(self):
        return self.wv.size
'''


def tree(tmp_path: Path, extra: dict[str, str] | None = None, sub: str = SUB) -> Path:
    files = {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/sub.py": sub, **(extra or {})}
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path / "pkg"


def found(pkg: Path, strict: bool = False) -> list[tuple[str, str, str]]:
    s = Settings(unknown_bases="strict") if strict else Settings()
    return sorted((f.cls.split(".")[-1], f.attr, f.severity.value)
                  for r in analyse_paths([pkg], s, use_cache=False, jobs=1) for f in r.findings)


def test_a_name_the_tree_never_spells_is_a_warning_in_a_class_restored_by_name(tmp_path):
    assert found(tree(tmp_path)) == [("Wmd", "w2v_model", "warning")]


def test_a_test_file_or_a_local_does_not_spell_it_for_the_program(tmp_path):
    extra = {"pkg/tests/test_sub.py": "class TestWmd:\n    def setUp(self):\n        self.w2v_model = 1\n",
             "pkg/docs.py": "def demo():\n    w2v_model = 3\n    return w2v_model\n"}
    assert found(tree(tmp_path, extra)) == [("Wmd", "w2v_model", "warning")]


def test_any_spelling_a_computed_store_could_use_keeps_the_class_open_for_that_name(tmp_path):
    for spelling in ('KEYS = ["w2v_model"]\n',                          # a string
                     'def f(o):\n    o.restore(w2v_model=1)\n',          # a keyword
                     'def f(a, w2v_model):\n    return a\n',             # a parameter
                     'def f(o):\n    o.w2v_model = 1\n'):                # a store on another object
        assert found(tree(tmp_path / str(abs(hash(spelling))), {"pkg/other.py": spelling})) == [], spelling


def test_a_class_whose_construction_runs_the_computed_store_is_not_judged_this_way(tmp_path):
    sub = SUB.replace("self.wv = kv", "self.wv = kv\n        self._load_specials(kv.names, kv.values)")
    assert found(tree(tmp_path, sub=sub)) == []


def test_a_name_a_method_of_the_class_assigns_is_left_to_the_ordinary_rules(tmp_path):
    sub = SUB + "\n    def attach(self, m):\n        self.w2v_model = m\n"
    assert found(tree(tmp_path, sub=sub)) == []


IDENT = st.from_regex(r"[a-z_][a-z0-9_]{2,10}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(IDENT, st.sampled_from(['setattr(o, "{a}", 1)', "KEYS = ('{a}',)", "f(x, {a}=2)", "def g(self, {a}):",
                               "def g(self, *, {a}=None):", "o.{a} = 1", "o.{a} += 1", "o.{a}: int = 1"]))
def test_every_way_to_spell_a_name_is_seen(attr, form):
    assert _spellings(attr).search(form.format(a=attr))


@settings(max_examples=60, deadline=None)
@given(IDENT, st.sampled_from(["return self.{a}", "x = self.{a}.y", "if self.{a} == 1:", "{a} = 3",
                               "print(self.{a}, {a}_other)", "self.{a} >= 2", "# the {a} of it"]))
def test_reads_comparisons_locals_and_prose_do_not_spell_it(attr, form):
    assert not _spellings(attr).search(form.format(a=attr))


def test_names_a_caller_hands_in_as_keywords_may_come_from_outside_the_tree(tmp_path):
    base = BASE.replace("def _load_specials(self, names, values):\n        for name, value in zip(names, values):",
                        "def initialize(self, **kwargs):\n        for name, value in kwargs.items():")
    assert "kwargs.items()" in base
    files = {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/sub.py": SUB}
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    assert found(tmp_path / "pkg") == []  # a library's users may call initialize(w2v_model=...)
