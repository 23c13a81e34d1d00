"""Private name mangling in the analyzer (patchkit/analysis/mangle.py) agrees with CPython's."""
from __future__ import annotations

import ast
import keyword

from hypothesis import given, settings, strategies as st

from patchkit.analysis.mangle import mangle_tree, mangled

# not a keyword (hypothesis found ``self.is = 1``, a SyntaxError, in session 47)
IDENT = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,6}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3), IDENT, st.integers(0, 3), IDENT, st.integers(0, 3))
def test_mangled_names_are_the_ones_python_uses(lead_cls, cls, lead, name, trail):
    cls_name = "_" * lead_cls + cls
    attr = "_" * lead + name + "_" * trail
    ns: dict = {}
    exec(f"class {cls_name}:\n    def f(self):\n        self.{attr} = 1\n        return self\n", ns)
    obj = ns[cls_name]().f()
    assert mangled(cls_name, attr) in vars(obj)


def test_the_tree_is_mangled_per_class_body_and_not_in_decorators_or_bases():
    src = ("class A(__Base):\n    def __f(self):\n        self.__x = __g\n"
           "    class __B:\n        def m(self):\n            return self.__y\n"
           "def __top():\n    return obj.__z\n")
    tree = ast.parse(src)
    mangle_tree(tree, src)
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
        {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert {"_A__f", "_A__x", "_A__g", "_B__y", "__Base", "__top", "__z"} <= names
    assert not {"__f", "__x", "__y"} & names
