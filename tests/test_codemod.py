"""Qualified anchors: errors name the file, class, method and the nearest names."""
import pytest
from hypothesis import given, settings, strategies as st

from patchkit import codemod as cm
from patchkit.ftypes import AnchorNotFound, TargetSyntaxError

SRC = '''
class EagleDraftWorker:
    def __init__(self, a):
        self.speculative_num_draft_tokens = a


class EAGLEWorkerV2:
    def __init__(self, a):
        self.speculative_num_draft_tokens = a  # keep me

    def forward_batch_generation(self, batch):
        return batch
'''


def test_missing_method_names_class_and_nearest():
    m = cm.parse("w.py", SRC)
    with pytest.raises(AnchorNotFound) as e:
        cm.find_method("w.py", m, "EAGLEWorkerV2", "forward_batch_generaton")
    assert str(e.value) == ("w.py: class EAGLEWorkerV2 has no method 'forward_batch_generaton'; "
                            "nearest: 'forward_batch_generation'")


def test_missing_class_names_nearest():
    with pytest.raises(AnchorNotFound, match="no class 'EagleWorkerV2'; nearest: 'EAGLEWorkerV2'"):
        cm.find_class("w.py", cm.parse("w.py", SRC), "EagleWorkerV2")


def test_qualified_insert_lands_in_the_named_class_not_the_first_init():
    m = cm.parse("w.py", SRC)
    fn = cm.find_method("w.py", m, "EAGLEWorkerV2", "__init__")
    stmt = cm.find_stmt("w.py", fn, cm.assigns_self_attr("speculative_num_draft_tokens"), "EAGLEWorkerV2.__init__")
    out = cm.insert(m, stmt, cm.statements("self.t = 1"), after=True).code
    first, second = out.split("class EAGLEWorkerV2")
    assert "self.t = 1" not in first and "self.t = 1" in second
    assert "# keep me\n        self.t = 1" in second


def test_missing_statement_shape():
    m = cm.parse("w.py", SRC)
    fn = cm.find_method("w.py", m, "EAGLEWorkerV2", "forward_batch_generation")
    with pytest.raises(AnchorNotFound, match=r"has no statement of shape 'self.x = \.\.\.'"):
        cm.find_stmt("w.py", fn, cm.assigns_self_attr("x"), "EAGLEWorkerV2.forward_batch_generation")


def test_syntax_error_names_file_and_line():
    with pytest.raises(TargetSyntaxError, match=r"^w.py:2:"):
        cm.parse("w.py", "x = 1\ndef (:\n")


import keyword

names = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n) and not keyword.issoftkeyword(n))


@settings(max_examples=60, deadline=None)
@given(st.lists(names, min_size=1, max_size=5, unique=True), st.sampled_from(["", "  # c", "\n\n"]))
def test_add_method_is_only_an_insertion(methods, trailer):
    body = "".join(f"    def {n}(self):\n        return {i}{trailer}\n" for i, n in enumerate(methods))
    src = f"class K:\n{body}"
    m = cm.parse("k.py", src)
    out = cm.add_method(m, cm.find_class("k.py", m, "K"), "def added(self):\n    return -1\n", after=methods[0]).code
    assert out.replace("\n    def added(self):\n        return -1\n", "", 1) == src
    compile(out, "k.py", "exec")
