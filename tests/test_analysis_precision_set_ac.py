"""Session 26's rules from set AC (analyzer-precision-session26.md in bench/results/analyzer-precision-history.tar.xz), each with a case of
the same shape that is still reported:

- a subclass whose class header names its base through an import alias (plotly's generated
  ``class Frame(_BaseFrameHierarchyType)`` after ``import BaseFrameHierarchyType as
  _BaseFrameHierarchyType``) is one of the base's subclasses: the template base it completes is
  not judged for what only the subclass provides;
- an owner that stores the attribute on instances it builds, defined under a module-level
  ``except ImportError:`` (distlib's ``ConvertingDict.configurator``, vendored in pip), injects it
  as one defined at top level does.
"""
from __future__ import annotations

import sys

import pytest

from patchkit.analysis.classindex import tokens_of
from _analysed_package import package_keys as findings



BASE = """
class BasePlotlyType:
    def __init__(self, name):
        self.name = name

class BaseFrameHierarchyType(BasePlotlyType):
    def __init__(self, name, **kwargs):
        super().__init__(name)

    def child_props(self, child):
        return self.data.index(child), self.layout
"""

FRAME = """
from pkg.base import BaseFrameHierarchyType as {alias}

class Frame({alias}):
    @property
    def data(self):
        return self._data

    @property
    def layout(self):
        return self._layout

    def __init__(self, data=(), layout=None):
        super().__init__("frame")
        self._data = list(data)
        self._layout = layout
"""


@pytest.mark.parametrize("alias", ["_BaseFrameHierarchyType", "BaseFrameHierarchyType"])
def test_template_base_completed_by_a_subclass_under_an_import_alias(tmp_path, alias):
    frame = FRAME.replace("BaseFrameHierarchyType as {alias}", "BaseFrameHierarchyType") \
        if alias == "BaseFrameHierarchyType" else FRAME
    got = findings(tmp_path, {"base.py": BASE, "frame.py": frame.format(alias=alias)})
    assert not any(c == "BaseFrameHierarchyType" for c, *_ in got), got


def test_template_base_still_reported_when_the_aliased_subclass_lacks_the_attribute(tmp_path):
    frame = FRAME.format(alias="_Base").replace("    @property\n    def layout(self):\n        return self._layout\n", "")
    got = findings(tmp_path, {"base.py": BASE, "frame.py": frame})
    assert ("BaseFrameHierarchyType", "layout", "PK003", "error") in got, got
    assert not any(c == "BaseFrameHierarchyType" and a == "data" for c, a, *_ in got), got


@pytest.mark.parametrize("imports", ["from a import Real as _Alias, Other", "from a import Other, Real as _Alias",
                                     "from a import (\n    Other,\n    Real  as  _Alias,\n)"])
def test_header_tokens_name_the_aliased_base(imports):
    toks = tokens_of(imports + "\nclass Sub(_Alias):\n    pass\n")
    assert "Real" in toks and "_Alias" in toks


def test_an_alias_bound_by_except_or_with_names_no_base():
    text = ("try:\n    import fast\nexcept ImportError as _Alias:\n    pass\nwith lock as _Ctx:\n    pass\n"
            "class Sub(_Alias, _Ctx):\n    pass\n")
    toks = tokens_of(text)
    assert "ImportError" not in toks and "lock" not in toks, toks


MODULE_BLOCK = {
    "with": "with warnings.catch_warnings():\n{body}",
    "except": "try:\n    import fast\nexcept ImportError:\n{body}",
    "finally": "try:\n    import fast\nfinally:\n{body}",
}
if sys.version_info >= (3, 11):
    MODULE_BLOCK["except*"] = "try:\n    import fast\nexcept* ImportError:\n{body}"


@pytest.mark.parametrize("block", sorted(MODULE_BLOCK))
def test_a_class_defined_in_a_module_level_block_is_analysed(tmp_path, block):
    body = "    class A:\n        def __init__(self):\n            self.x = 1\n        def f(self):\n            return self.missing\n"
    text = "import warnings\n" + MODULE_BLOCK[block].format(body=body)
    got = findings(tmp_path, {"m.py": text})
    assert ("A", "missing", "PK003", "error") in got, got


CONFIGURATOR = """
try:
    from logging.config import BaseConfigurator
except ImportError:
    class ConvertingDict(dict):
        def __getitem__(self, key):
            value = dict.__getitem__(self, key)
            return self.configurator.convert(value)

    class BaseConfigurator(object):
        def __init__(self, config):
            self.config = ConvertingDict(config)
            self.config.configurator = self

        def convert(self, value):
            if not isinstance(value, ConvertingDict) and isinstance(value, dict):
                value = ConvertingDict(value)
                value.configurator = self
            return value
"""


@pytest.mark.parametrize("block", ["except", "finally", "else"])
def test_owner_injection_defined_under_a_module_level_try_block(tmp_path, block):
    text = CONFIGURATOR
    if block == "finally":
        text = text.replace("except ImportError:", "except ImportError:\n    pass\nfinally:")
    elif block == "else":
        text = text.replace("except ImportError:", "except ImportError:\n    pass\nelse:")
    got = findings(tmp_path, {"compat.py": text})
    assert ("ConvertingDict", "configurator", "PK003", "warning") in got, got
    assert ("ConvertingDict", "configurator", "PK003", "error") not in got, got


def test_no_owner_under_the_try_block_is_still_an_error(tmp_path):
    text = CONFIGURATOR.replace("            self.config.configurator = self\n", "") \
        .replace("                value.configurator = self\n", "")
    got = findings(tmp_path, {"compat.py": text})
    assert ("ConvertingDict", "configurator", "PK003", "error") in got, got
