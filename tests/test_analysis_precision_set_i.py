"""Rules from set I (seed 38, session 10), each with the counterpart that stays an error."""
from __future__ import annotations

from _analysed_package import package_findings

CLASS_PROPERTIES = {
    "base.py": '''
class Dist:
    def __init__(self, **params):
        self._parameters = self._process(**params)
        for name in self._parameters:
            if hasattr(self.__class__, name):
                continue
            setattr(self.__class__, name, property(lambda s, n=name: s._parameters[n]))

    def _process(self, **p):
        return p


class Named:
    def __init__(self):
        self.n = 1
        setattr(type(self), "loc", 0.0)
''',
    "sub.py": '''
from .base import Dist, Named


class Shifted(Dist):
    def _process(self, loc=0.0, scale=1.0):
        return {"loc": loc, "scale": scale}

    def __repr__(self):
        return f"Shifted({self.loc}, {self.scale})"


class Located(Named):
    def __repr__(self):
        return f"Located({self.loc}, {self.scale})"
''',
}


LOCALS_CONFIG = {
    "base.py": '''
class AWSBase:
    def __init__(self, **kwargs):
        self.aws_authentication_params = ["aws_region_name"]


class InvokeConfig(AWSBase):
    def __init__(self, **kwargs):
        AWSBase.__init__(self, **kwargs)

    def map_params(self, params):
        return {k: v for k, v in params.items() if k not in self.aws_authentication_params}
''',
    "legacy.py": '''
from .base import InvokeConfig


class LegacyConfig(InvokeConfig):
    max_tokens: int = 256

    def __init__(self, max_tokens=None, temperature=None):
        locals_ = dict(locals())
        for key, value in locals_.items():
            if key != "self" and value is not None:
                setattr(self.__class__, key, value)

    def describe(self):
        return self.temperature
''',
}


def test_setattr_on_the_class_keyed_by_locals_sets_only_the_parameters(tmp_path):
    """litellm's provider configs copy their ``__init__`` parameters onto the class with
    ``setattr(self.__class__, key, value)`` over ``locals()``: those names are class attributes,
    and the class stays closed, so the missing base initialiser is still an error (litellm's
    ``AmazonAnthropicConfig.aws_authentication_params``, a real bug)."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, LOCALS_CONFIG)}
    assert ("LegacyConfig", "temperature") not in found
    assert found[("LegacyConfig", "aws_authentication_params")].severity == "error"


def test_setattr_on_the_class_with_a_computed_name_opens_it(tmp_path):
    """scipy's ``UnivariateDistribution._update_parameters`` makes every parameter a class property
    with ``setattr(self.__class__, name, property(...))`` (6 false error groups): the class is
    open. A literal name is a class attribute, and every other read stays an error."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, CLASS_PROPERTIES)}
    assert not [k for k in found if k[0] == "Shifted"]
    assert ("Located", "loc") not in found
    assert found[("Located", "scale")].severity == "error"


PY2_FALLBACK = '''
import threading


class StoppableThread(threading.Thread):
    def __init__(self, loop, **kwargs):
        super().__init__(**kwargs)
        self.loop = loop

    def run(self):
        if hasattr(self, "_target"):
            target = self._target
        else:
            target = self._Thread__target
        return target


class Sure:
    def __init__(self):
        self.a = 1

    def go(self):
        if not hasattr(self, "a"):
            return self.legacy
        return self.a


class Maybe:
    def __init__(self, flag):
        if flag:
            self.a = 1

    def go(self):
        if hasattr(self, "a"):
            return self.a
        return self.b
'''


def test_a_branch_where_an_always_assigned_attribute_is_missing_is_dead(tmp_path):
    """panel's ``StoppableThread.run`` keeps a Python 2 fallback under ``else:`` of
    ``hasattr(self, '_target')``, which ``Thread.__init__`` always sets (3 false error groups).
    When the guarded attribute may really be missing, the fallback's reads stay errors."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": PY2_FALLBACK})}
    assert not [k for k in found if k[0] in ("StoppableThread", "Sure")]
    assert found[("Maybe", "b")].severity == "error"


DELEGATED = {
    "base.py": '''
class AsyncBase:
    def __init__(self, file):
        self._file = file

    async def __anext__(self):
        return await self.readline()

    def name(self):
        return self._name


def delegate_to_executor(*names):
    def cls_builder(cls):
        for n in names:
            setattr(cls, n, lambda self, *a, n=n: getattr(self._file, n)(*a))
        return cls
    return cls_builder
''',
    "text.py": '''
from .base import AsyncBase, delegate_to_executor


@delegate_to_executor("readline", "close")
class AsyncTextIOWrapper(AsyncBase):
    pass
''',
}


def test_a_template_base_whose_subclasses_are_decorated_open(tmp_path):
    """aiofiles (vendored by gradio): ``AsyncBase.__anext__`` calls ``self.readline()``, which every
    subclass gets from its ``@delegate_to_executor(...)`` class decorator. The base is a template
    and its decorated subclasses are open, so neither gets an error."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, DELEGATED) if f.severity == "error"}
    assert ("AsyncBase", "readline") not in found
    assert not [k for k in found if k[0] == "AsyncTextIOWrapper"]


def test_a_template_base_without_subclasses_keeps_its_error(tmp_path):
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"base.py": DELEGATED["base.py"]})}
    assert found[("AsyncBase", "readline")].severity == "error"


DOCSTRING_DECORATED = {
    "base.py": '''
class _AnnotationBase:
    def __init__(self, xy):
        self.xy = xy

    def _get_xy_transform(self, unit):
        if unit == "fontsize":
            return self.get_size() * 2
        return 1
''',
    "box.py": '''
from .base import _AnnotationBase


def interpd(cls):
    cls.__doc__ = (cls.__doc__ or "") + " (interpolated)"
    return cls


@interpd
class AnnotationBbox(_AnnotationBase):
    def __init__(self, xy):
        _AnnotationBase.__init__(self, xy)
''',
}


def test_a_decorator_that_names_nothing_does_not_provide_the_base_template(tmp_path):
    """matplotlib's ``_AnnotationBase._get_xy_transform`` calls ``self.get_size()``, which
    ``AnnotationBbox`` lacks: a real bug. Its ``@_docstring.interpd`` decorator spells out no
    attribute, so the base's read stays an error (a decorator call that names attributes, like
    aiofiles' ``@delegate_to_executor("readline")``, provides them)."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, DOCSTRING_DECORATED) if f.severity == "error"}
    assert ("_AnnotationBase", "get_size") in found


EXACT_TYPE = '''
class Explainer:
    def __init__(self, model):
        if self.__class__ is Explainer:
            self.setup(model)
        self.model = model

    def setup(self, model):
        self.kind = "auto"


class Additive(Explainer):
    def setup(self, model):
        self.kind = self.model.kind


class Early(Explainer):
    def __init__(self, model):
        if type(self) is Early:
            self.first = self.model
        super().__init__(model)
'''


def test_a_test_of_the_exact_class_is_decided_for_each_class_constructed(tmp_path):
    """shap's ``Explainer.__init__`` re-classes a bare ``Explainer`` and runs another explainer's
    ``__init__`` on it, under ``if self.__class__ is Explainer:``; constructing
    ``AdditiveExplainer`` never takes that branch (2 false groups). Here ``Additive`` never runs its
    ``setup`` during construction, and ``Early``, whose own test holds for itself, still reads
    ``self.model`` too early (an error)."""
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"m.py": EXACT_TYPE}) if f.severity == "error"}
    assert ("Additive", "model") not in found, found
    assert found[("Early", "model")].code == "PK002"
