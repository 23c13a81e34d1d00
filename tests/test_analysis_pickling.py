"""PK007 unpickled-missing: unpickling fills an instance from ``__getstate__``'s state and
``__setstate__``, never ``__init__``. For every mix of names kept, dropped and made again, exactly
the names construction assigns that come back from neither are reported where a method reads them
(requests 2.1.0's ``HTTPAdapter.proxy_manager``, not in ``__attrs__``), and nothing where the
state's shape is one the analyzer does not read."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source
from patchkit.analysis.rules import pk007_unpickled_missing as pk007

NAMES = ("a", "b", "c", "d", "e")


def _cls(getstate: list[str], setstate: list[str] | None, reads=NAMES) -> str:
    init = "\n".join(f"        self.{n} = {i}" for i, n in enumerate(NAMES))
    use = "\n".join(f"        print(self.{n})" for n in reads)
    src = f"class Box:\n    def __init__(self):\n{init}\n    def __getstate__(self):\n"
    src += "\n".join(f"        {line}" for line in getstate) + "\n"
    if setstate is not None:
        src += "    def __setstate__(self, state):\n" + "\n".join(f"        {line}" for line in setstate) + "\n"
    return src + f"    def use(self):\n{use}\n"


def _pk007(src: str) -> set[str]:
    return {f.attr for f in analyse_source("m.py", src) if f.code == "PK007"}


flags = st.lists(st.booleans(), min_size=len(NAMES), max_size=len(NAMES))


@settings(max_examples=60, deadline=None)
@given(flags, flags, st.sampled_from(["none", "loop", "update", "own"]))
def test_a_listed_state_reports_exactly_the_names_nothing_gives_back(kept, made, restore):
    listed = [n for n, k in zip(NAMES, kept) if k]
    again = [n for n, m in zip(NAMES, made) if m]
    getstate = [f"return {{n: getattr(self, n, None) for n in {listed!r}}}"]
    if restore == "none":
        setstate, expected = None, set(NAMES) - set(listed)
    else:
        body = {"loop": ["for k, v in state.items():", "    setattr(self, k, v)"],
                "update": ["self.__dict__.update(state)"], "own": []}[restore]
        setstate = body + [f"self.{n} = None" for n in again] + ["pass"]
        back = set(again) | (set() if restore == "own" else set(listed))
        expected = set(NAMES) - back
    assert _pk007(_cls(getstate, setstate)) == expected


@settings(max_examples=60, deadline=None)
@given(flags, flags, st.sampled_from(["del state[{k!r}]", "state.pop({k!r}, None)", "state.pop({k!r})"]))
def test_a_copied_state_reports_the_dropped_names_setstate_forgets(dropped, made, how):
    gone = [n for n, d in zip(NAMES, dropped) if d]
    again = [n for n, m in zip(NAMES, made) if m]
    getstate = ["state = self.__dict__.copy()", *[how.format(k=n) for n in gone], "return state"]
    setstate = ["self.__dict__.update(state)", *[f"self.{n} = 0" for n in again]]
    expected = set(gone) - set(again) if gone else set()
    assert _pk007(_cls(getstate, setstate)) == expected
    assert _pk007(_cls(getstate, None)) == set(gone)


def test_reads_that_survive_the_copy_are_not_reported():
    """A guarded read, a class-level default and a private helper only construction calls."""
    src = '''
class Box:
    b = None
    def __init__(self):
        self.a = 1
        self.b = 2
        self.c = 3
        self._setup()
    def _setup(self):
        print(self.c)
    def __getstate__(self):
        return {"x": 1}
    def use(self):
        print(self.b, getattr(self, "a", None))
        if hasattr(self, "c"):
            print(self.c)
'''
    assert _pk007(src) == set()


def test_states_the_analyzer_cannot_read_say_nothing():
    shapes = [
        ["return {k: v for k, v in self.__dict__.items() if k != 'a'}"],
        ["state = self.__dict__.copy()", "for k in ('a', 'b'):", "    del state[k]", "return state"],
        ["state = self.__dict__.copy()", "del state['a']", "state.update(extra=1)", "return state"],
        ["return self.__dict__"],
    ]
    for getstate in shapes:
        assert _pk007(_cls(getstate, None)) == set(), getstate
    # __setstate__ that runs __init__ or a custom reduce: the copy is rebuilt another way
    listed = ["return {'a': self.a}"]
    assert _pk007(_cls(listed, ["self.__init__()"])) == set()
    src = _cls(listed, None) + "    def __reduce__(self):\n        return (Box, ())\n"
    assert _pk007(src) == set()


def test_the_rule_is_a_warning_with_a_fix():
    got = [f for f in analyse_source("m.py", _cls(["return {'a': self.a}"], None, reads=("b",))) if f.code == "PK007"]
    assert [(f.attr, f.severity.value) for f in got] == [("b", "warning")]
    assert "__getstate__ (line 9) saves only the listed names" in got[0].why
    assert pk007.RULE.level == "warning" and "__setstate__" in pk007.RULE.fix


def test_names_a_subclass_adds_under_its_bases_state_are_left_alone():
    """The base's author listed the state; a name only a subclass assigns is the subclass's
    business (torch's ZeroRedundancyOptimizer under Optimizer's listed ``__getstate__``), while a
    name of the base that the list forgets is still reported, in the subclass's context too."""
    src = '''
class Optimizer:
    def __init__(self):
        self.defaults = {}
        self.hooks = []
    def __getstate__(self):
        return {"defaults": self.defaults}
    def step(self):
        return self.hooks

class Zero(Optimizer):
    def __init__(self):
        super().__init__()
        self.rank = 0
    def consolidate(self):
        return self.rank
'''
    got = {(f.cls, f.attr) for f in analyse_source("m.py", src) if f.code == "PK007"}
    assert ("Zero", "rank") not in got and ("Optimizer", "rank") not in got
    assert {a for _c, a in got} == {"hooks"}, got


def test_setstate_stores_are_followed_through_super_calls():
    """pip's vendored requests: ``__setstate__`` calls ``self.init_poolmanager()``, which a mixin
    overrides and passes on with ``super().init_poolmanager()``; the base's assigns ``poolmanager``."""
    src = '''
class BaseAdapter:
    __attrs__ = ["max_retries"]
    def __init__(self):
        self.max_retries = 0
        self.init_poolmanager()
    def __getstate__(self):
        return {a: getattr(self, a, None) for a in self.__attrs__}
    def __setstate__(self, state):
        for attr, value in state.items():
            setattr(self, attr, value)
        self.init_poolmanager()
    def init_poolmanager(self):
        self.poolmanager = object()
    def send(self):
        return self.poolmanager

class Mixin:
    def init_poolmanager(self, *args, **kwargs):
        return super().init_poolmanager(*args, **kwargs)

class Adapter(Mixin, BaseAdapter):
    pass
'''
    assert {(f.cls, f.attr) for f in analyse_source("m.py", src) if f.code == "PK007"} == set()


def test_setstate_that_hands_the_instance_to_other_code_says_nothing():
    """sqlalchemy's ``_AssociationList.__setstate__`` calls ``parent._inflate(self)``, which sets
    the names the state leaves out: code the analyzer does not follow may fill the instance."""
    listed = ["return {'a': self.a}"]
    assert _pk007(_cls(listed, ["self.a = state['a']", "registry.inflate(self)"])) == set()
    assert _pk007(_cls(listed, ["self.a = state['a']", "registry.inflate(target=self)"])) == set()
    assert _pk007(_cls(listed, ["self.a = state['a']", "registry.inflate(state)"])) == set(NAMES) - {"a"}


def test_shapes_from_review_are_read_right():
    """Found by reviewing the rule (session 31), each confirmed on the first version."""
    listed = ["return {'a': self.a}"]
    # __setstate__ restoring by other spellings: whole, or the names it sets
    assert _pk007(_cls(listed, ["self.__dict__ = state"])) == set(NAMES) - {"a"}  # state holds only 'a'
    got = _pk007(_cls(listed, ["self.__dict__.update(state)", "super().__setattr__('b', 0)", "self.__dict__['c'] = 0"]))
    assert got == set(NAMES) - {"a", "b", "c"}, got
    # an exception: BaseException.__reduce__ re-runs __init__ and ignores __getstate__
    exc = _cls(listed, None).replace("class Box:", "class Box(Exception):")
    assert _pk007(exc) == set()
    # a copied state that drops a name construction never assigns: no PK007 for it
    lazy = _cls(["state = self.__dict__.copy()", "state.pop('late', None)", "return state"], None)
    lazy += "    def open(self):\n        self.late = 1\n    def close(self):\n        return self.late\n"
    assert _pk007(lazy) == set()
    # a list grown with += in the class body, and another object's list: not read
    grown = _cls(["return {n: getattr(self, n) for n in self.__attrs__}"], None).replace(
        "class Box:\n", "class Box:\n    __attrs__ = ['a']\n    __attrs__ += ['b']\n")
    assert _pk007(grown) == set()
    other = _cls(["return {n: getattr(self, n) for n in self.cfg.fields}"], None).replace(
        "class Box:\n", "class Box:\n    fields = ['a']\n")
    assert _pk007(other) == set()
