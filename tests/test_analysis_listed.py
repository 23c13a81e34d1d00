"""listed.py: the names a class-level list gives a computed store guarded by it, read along the MRO,
and dynamic.listing_guard: which setattr calls count as bounded by such a list."""
import ast
import textwrap

from hypothesis import given, strategies as st

from patchkit.analysis.dynamic import listing_guard
from patchkit.analysis.listed import listed_names
from patchkit.analysis.model import build_module


def classes(src: str, *names: str):
    src = textwrap.dedent(src)
    mod = build_module("m", "m.py", ast.parse(src), src)
    return [mod.classes[n] for n in names]


IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)


@given(st.lists(IDENT, max_size=5), st.lists(IDENT, max_size=5))
def test_a_subclass_list_built_on_its_base_list_holds_both(base, extra):
    src = f"""
    class Base:
        _props = {tuple(base)!r}
    class Sub(Base):
        _props = Base._props + {tuple(extra)!r}
    """
    sub, b = classes(src, "Sub", "Base")
    assert listed_names([sub, b], "_props") == frozenset(base) | frozenset(extra)
    assert listed_names([b], "_props") == frozenset(base)


def test_the_first_class_of_the_mro_that_assigns_the_list_decides():
    sub, mid, b = classes("""
    class Base:
        _props = ('a',)
    class Mid(Base):
        pass
    class Sub(Mid):
        _props = ['b', 'c']
    """, "Sub", "Mid", "Base")
    assert listed_names([sub, mid, b], "_props") == {"b", "c"}
    assert listed_names([mid, b], "_props") == {"a"}


def test_a_list_it_cannot_read_is_none():
    c, other = classes("""
    class Other:
        _props = ('x',)
    class C:
        _props = tuple(make())
        _mixed = ('a', NAME)
        _elsewhere = Other._props + ('b',)
    """, "C", "Other")
    assert listed_names([c], "_props") is None
    assert listed_names([c], "_mixed") is None
    assert listed_names([c], "_elsewhere") is None  # Other is not in C's MRO
    assert listed_names([c], "_missing") is None


def _setattr_of(src: str):
    fn = ast.parse(textwrap.dedent(src)).body[0]
    call = next(n for n in ast.walk(fn) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "setattr")
    return fn, call


def test_the_guards_that_bound_a_setattr():
    for guarded in ("""
    def f(self, d):
        for k, v in d.items():
            if k not in self._props:
                raise KeyError(k)
            setattr(self, k, v)
    """, """
    def f(self, d):
        for k, v in d.items():
            if k in self._props:
                setattr(self, k, v)
    """, """
    def f(self, d):
        for k, v in d.items():
            if k not in self._props:
                continue
            setattr(self, k, v)
    """):
        assert listing_guard(*_setattr_of(guarded), "self", "k") == "_props"
    for unguarded in ("""
    def f(self, d):
        for k, v in d.items():
            if k not in self._props:
                print(k)
            setattr(self, k, v)
    """, """
    def f(self, d):
        for k, v in d.items():
            if k in self._props:
                pass
            setattr(self, k, v)
    """, """
    def f(self, d, other):
        for k, v in d.items():
            if k not in other._props:
                raise KeyError(k)
            setattr(self, k, v)
    """):
        assert listing_guard(*_setattr_of(unguarded), "self", "k") is None
