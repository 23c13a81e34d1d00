"""A metaclass that sets class attributes named by a class-level list (astropy's ``DataInfoMeta``:
``for attr in cls.attr_names: setattr(cls, attr, InfoAttribute(attr))``) sets those names and no
others: the class stays closed for the rest, so astropy 7.2.0's ``DataInfo.__getstate__`` reading
the ``_attrs`` that ``__init__(bound=False)`` never assigns is shown (rel_44). A list the analyzer
cannot read keeps the class open, as any computed store."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from patchkit.analysis import analyse_source

SRC = '''
class InfoAttribute:
    def __init__(self, attr):
        self.attr = attr

class Meta(type):
    def __init__(cls, name, bases, dct):
        super().__init__(name, bases, dct)
        for attr in cls.attr_names:
            if attr not in dct:
                setattr(cls, attr, InfoAttribute(attr))

class DataInfo(metaclass=Meta):
    attr_names = {LISTED}

    def __init__(self, bound=False):
        if bound:
            self._attrs = {}

    def __getstate__(self):
        return self._attrs

    def use(self):
        return self.READ
'''

NAMES = ("name", "unit", "dtype", "meta")


def _shown(src):
    return {(f.code, f.attr) for f in analyse_source("m.py", src)}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=1, unique=True), st.sampled_from(NAMES))
def test_the_listed_names_are_class_attributes_and_nothing_else_is(listed, read):
    src = SRC.replace("LISTED", ", ".join(repr(n) for n in listed)).replace("READ", read)
    got = _shown(src)
    assert ("PK001", "_attrs") in got, got  # the class is closed: the unbound path is shown
    assert (("PK003", read) in got) == (read not in listed), (listed, read, got)


def test_a_list_the_analyzer_cannot_read_keeps_the_class_open():
    src = SRC.replace("attr_names = {LISTED}", "attr_names = make_names()").replace("READ", "name")
    assert not any(a in ("_attrs", "name") for _c, a in _shown(src))


def test_a_subclass_list_adds_to_the_base_list():
    """The metaclass runs again for the subclass, with the subclass's own list: the base's names
    stay class attributes of the subclass (both lists count)."""
    src = SRC.replace("LISTED", "'unit'").replace("READ", "unit") + '''
class Sub(DataInfo):
    attr_names = ("dtype",)

    def more(self):
        return self.unit, self.dtype, self.other
'''
    got = _shown(src)
    assert ("PK003", "unit") not in got and ("PK003", "dtype") not in got, got
    assert ("PK003", "other") in got, got
