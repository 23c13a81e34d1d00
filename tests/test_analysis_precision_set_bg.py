"""Session 42's rules from set BG (bench/results/analyzer-precision-session42.md), each with the
cases of the same shape that stay reported.

1. A class nested in a class body and subclassed there by its siblings
   (``class utc_timezone(fixed_timezone)`` inside schematics 2.1.1's ``DateTimeType``) has those
   subclasses: a template nobody builds is completed by them, as at module level. The MRO already
   read such bases in the enclosing body; the search for subclasses did not.
2. ``numpy.ndarray`` is a closed library base: ``self.shape`` on a subclass is the array's
   (glumpy 1.2.1's textures, built with ``.view(cls)``), and a name it does not give stays the
   subclass's to assign.
"""
from __future__ import annotations

import textwrap

from patchkit.analysis import analyse_source


def _found(src: str) -> set[tuple[str, str, str]]:
    return {(f.cls, f.attr, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}


NESTED = """
import datetime


class DateTimeType:
    class fixed_timezone(datetime.tzinfo):
        def utcoffset(self, dt):
            return self.offset

        def tzname(self, dt):
            return self.str

    class utc_timezone(fixed_timezone):
        offset = datetime.timedelta(0)
        name = str = "UTC"

    class offset_timezone(fixed_timezone):
        def __init__(self, hours=0):
            self.offset = datetime.timedelta(hours=hours)
            {str_store}

    UTC = utc_timezone()
{extra}
"""


def test_a_nested_template_is_completed_by_its_nested_subclasses():
    got = _found(NESTED.format(str_store="self.str = 'x'", extra=""))
    assert not {g for g in got if g[0] == "DateTimeType.fixed_timezone"}


def test_a_nested_subclass_that_forgets_stays_reported():
    forgets = _found(NESTED.format(str_store="pass", extra=""))
    assert ("DateTimeType.offset_timezone", "str", "error") in forgets


def test_nested_and_module_level_templates_are_judged_alike(tmp_path):
    flat = textwrap.dedent(NESTED.format(str_store="self.str = 'x'", extra="")).replace("class DateTimeType:\n", "")
    flat = textwrap.dedent("\n".join(line[4:] if line.startswith("    ") else line for line in flat.splitlines()))
    nested = _found(NESTED.format(str_store="self.str = 'x'", extra=""))
    assert {(c.split(".")[-1], a, s) for c, a, s in nested} == _found(flat)


ARRAY = """
import numpy as np


class GPUData(np.ndarray):
    def __new__(cls, *args, **kwargs):
        return np.ndarray.__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        pass


class Texture2D(GPUData):
    def __init__(self):
        GPUData.__init__(self)
        self.width = self.shape[1]
        self.kind = self.{read}
"""


def test_an_ndarray_subclass_has_the_arrays_attributes():
    assert not {g for g in _found(ARRAY.format(read="dtype")) if g[2] == "error"}


def test_an_ndarray_subclass_still_needs_its_own_names():
    assert ("Texture2D", "_format", "error") in _found(ARRAY.format(read="_format"))
