"""The analyzer's fast text of branch tests must equal ``ast.unparse`` whenever it answers: the
flow analysis compares conditions by this text, so a mismatch would split one condition in two."""
import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from patchkit.analysis.flow import _simple_text

names = st.sampled_from(["self", "x", "cfg", "mode", "a_b"])
attrs = st.sampled_from(["flag", "mode", "enabled", "x"])
consts = st.one_of(st.none(), st.booleans(), st.integers(-3, 300),
                   st.text(alphabet=st.characters(codec="utf-8"), max_size=6), st.floats(allow_nan=False))


def exprs():
    leaf = st.one_of(names.map(lambda n: ast.Name(n, ast.Load())), consts.map(ast.Constant))
    cmpops = st.sampled_from([ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.Lt, ast.In, ast.NotIn, ast.GtE])

    def extend(inner):
        return st.one_of(
            st.tuples(inner, attrs).map(lambda t: ast.Attribute(t[0], t[1], ast.Load())),
            st.tuples(inner, cmpops, inner).map(lambda t: ast.Compare(t[0], [t[1]()], [t[2]])),
            st.tuples(inner, st.lists(inner, max_size=3), st.lists(st.tuples(attrs, inner), max_size=2)).map(
                lambda t: ast.Call(t[0], t[1], [ast.keyword(k, v) for k, v in t[2]])),
            inner.map(lambda e: ast.UnaryOp(ast.Not(), e)),
            st.tuples(inner, inner).map(lambda t: ast.BoolOp(ast.And(), [t[0], t[1]])),
        )
    return st.recursive(leaf, extend, max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(exprs())
def test_fast_text_is_unparse_or_nothing(e):
    tree = ast.fix_missing_locations(ast.Expression(e))
    expected = ast.unparse(tree.body)
    got = _simple_text(tree.body)
    assert got is None or got == expected
    if got is not None:  # and it is the text of the same expression
        assert ast.dump(ast.parse(got, mode="eval").body) == ast.dump(ast.parse(expected, mode="eval").body)
