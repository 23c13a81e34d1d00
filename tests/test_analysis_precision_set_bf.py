"""Session 42's rules from set BF (bench/results/analyzer-precision-session42.md), each with the
cases of the same shape that stay reported.

1. attrs' ``x = field(init=False)`` with a ``@x.default`` method: the generated ``__init__`` stores
   it (semgrep 1.187's ``RuleMatch``, ten groups).
2. ``if not hasattr(self, "g"):`` on a path that has stored ``g`` is not taken: a base in another
   module that builds ``g`` only when the subclass has not (ScoutSuite 5.14's ``BaseProvider``).
   The same shape in one module was already right; across modules it was an error.
3. ``self.m()`` on a classmethod: what ``m`` surely stores on ``cls`` (``if not hasattr(cls, "x"):
   cls.x = ...`` included) is a class attribute from then on (snorkel 0.10's
   ``BaseNLPLabelingFunction._nlp_config``).
4. ``new = type(name, (cls,), {}); new.attr = ...`` in a factory that is handed the class, directly
   or through a wrapper that forwards its parameter (motor 3.7's ``create_class_with_framework``):
   the attribute is a class attribute of the class the instances come from (a warning naming it).
5. A base no code builds or hands on, whose every leaf subclass assigns the attribute in its own
   initialiser: a missing base ``__init__`` in it is a warning (habitat-lab's ``BooleanObjectState``).
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_keys
from patchkit.analysis import analyse_source


def _errors(src: str) -> set[tuple[str, str]]:
    return {(f.cls, f.attr) for f in analyse_source("m.py", textwrap.dedent(src)) if f.severity.value == "error"}


ATTRS = """
from attrs import field, frozen


@frozen(eq=False)
class RuleMatch:
    path: str
    lines: list = field(init=False, repr=False)
    key: str = field(init=False)
    {extra}

    @lines.default
    def get_lines(self):
        return [self.path]

    @key.default
    def get_key(self):
        return self.lines[0]

    def show(self):
        return self.key + self.lines[0] + {read}
"""


def test_an_attrs_field_with_a_default_method_is_stored():
    assert _errors(ATTRS.format(extra="", read="''")) == set()


def test_an_attrs_init_false_field_without_a_default_stays_reported():
    src = ATTRS.format(extra="hidden: str = field(init=False)", read="self.hidden")
    assert _errors(src) == {("RuleMatch", "hidden")}


PROVIDER = """
class BaseProvider:
    def __init__(self, services=None):
        self.last_run = None
        if not hasattr(self, "services"):
            self.services = self.services_config(self.credentials)
        self.service_list = list(vars(self.services))
"""


def test_a_hasattr_branch_the_subclass_has_settled_is_not_taken_across_modules(tmp_path):
    keys = package_keys(tmp_path, {"base.py": PROVIDER, "azure.py": """
        from pkg.base import BaseProvider


        class Config:
            pass


        class AzureProvider(BaseProvider):
            def __init__(self, services=None, **kwargs):
                self.credentials = kwargs["credentials"]
                self.services = Config()
                super().__init__(services)


        class LazyProvider(BaseProvider):
            def __init__(self, **kwargs):
                self.credentials = kwargs["credentials"]
                super().__init__()
    """})
    assert not {k for k in keys if k[0] == "AzureProvider"}
    # a subclass that leaves services unset takes the branch: its read is still an error
    assert ("LazyProvider", "services_config", "PK002", "error") in keys


def test_a_hasattr_branch_is_settled_when_the_subclass_file_is_checked_alone(tmp_path):
    from patchkit.analysis.runner import analyse_paths
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(PROVIDER)
    (pkg / "azure.py").write_text(textwrap.dedent("""
        from pkg.base import BaseProvider


        class AzureProvider(BaseProvider):
            def __init__(self):
                self.credentials = None
                self.services = object()
                super().__init__()
    """))
    found = [f for r in analyse_paths([pkg / "azure.py"], use_cache=False, jobs=1) for f in r.findings]
    assert not [f for f in found if f.cls == "AzureProvider"]


CLASSMETHOD = """
class Config:
    pass


class LabelingFunction:
    def __init__(self, name, language=None):
        self.name = name
        self._create_or_check(language)
        self.pre = self._nlp_config

    @classmethod
    def _create_or_check(cls, language):
        {body}
"""


def test_a_classmethod_that_surely_stores_on_cls_gives_a_class_attribute():
    body = """if not hasattr(cls, "_nlp_config"):
            cls._nlp_config = Config()
        elif language is not None:
            raise ValueError(language)"""
    assert _errors(CLASSMETHOD.format(body=body)) == set()
    assert _errors(CLASSMETHOD.format(body="cls._nlp_config = Config()")) == set()


def test_a_classmethod_that_stores_on_cls_only_sometimes_stays_reported():
    body = """if language is not None:
            cls._nlp_config = Config()"""
    assert ("LabelingFunction", "_nlp_config") in _errors(CLASSMETHOD.format(body=body))


FACTORY = """
_cache = {}


def create_class_with_framework(cls, framework, module_name):
    name = framework.PREFIX + cls.__name__
    new_class = type(str(name), (cls,), {})
    new_class.__module__ = module_name
    new_class._framework = framework
    _cache[name] = new_class
    return new_class


def create_asyncio_class(cls):
    return create_class_with_framework(cls, None, "pkg.aio")
"""

CORE = """
from pkg.meta import create_asyncio_class, create_class_with_framework


class AgnosticBase:
    def __init__(self, delegate):
        self.delegate = delegate


class AgnosticCursor(AgnosticBase):
    def fetch(self):
        return self._framework.run(self.delegate)


class AgnosticBucket(AgnosticBase):
    def upload(self):
        return self._framework.run(self.delegate)


class AgnosticClient(AgnosticBase):
    def cursor(self):
        klass = create_class_with_framework(AgnosticCursor, self._framework, self.__module__)
        return klass(self)


class Plain(AgnosticBase):
    def fetch(self):
        return self._framework


AsyncIOMotorBucket = create_asyncio_class(AgnosticBucket)
AsyncIOMotorClient = create_asyncio_class(AgnosticClient)
"""


def test_a_type_factory_handed_the_class_gives_its_subclass_the_attribute(tmp_path):
    keys = package_keys(tmp_path, {"meta.py": FACTORY, "core.py": CORE})
    for cls in ("AgnosticCursor", "AgnosticBucket", "AgnosticClient"):
        assert (cls, "_framework", "PK003", "warning") in keys, cls
        assert (cls, "_framework", "PK003", "error") not in keys, cls
    # a class no factory is handed keeps its error
    assert ("Plain", "_framework", "PK003", "error") in keys


TEMPLATE = """
class Spec:
    def __init__(self):
        self.accepted = None
        self.name = "spec"

    def is_affordance(self, obj):
        return obj in self.accepted


class BooleanState(Spec):
    \"\"\"Abstract base for boolean states.\"\"\"

    def __init__(self):
        self.name = "bool"

    def toggle(self):
        return not self.is_affordance(1)


class IsClean(BooleanState):
    def __init__(self):
        super().__init__()
        self.accepted = []


class IsOn(BooleanState):
    def __init__(self):
        super().__init__()
        {on_body}


def register(machine):
    for c in (IsClean(), IsOn()):
        machine.append(c.toggle())
{extra}
"""


def _severities(src: str) -> set[tuple[str, str, str]]:
    return {(f.cls, f.attr, f.severity.value) for f in analyse_source("m.py", textwrap.dedent(src))}


def test_a_base_nobody_builds_whose_subclasses_assign_it_is_a_warning():
    got = _severities(TEMPLATE.format(on_body="self.accepted = [1]", extra=""))
    assert ("BooleanState", "accepted", "warning") in got
    assert ("BooleanState", "accepted", "error") not in got


def test_a_template_base_that_is_built_or_has_a_subclass_without_it_stays_an_error():
    built = TEMPLATE.format(on_body="self.accepted = [1]", extra="\n\ndef make():\n    return BooleanState()\n")
    assert ("BooleanState", "accepted", "error") in _severities(built)
    handed = TEMPLATE.format(on_body="self.accepted = [1]", extra="\n\nSTATES = [BooleanState, IsOn]\n")
    assert ("BooleanState", "accepted", "error") in _severities(handed)
    missing = TEMPLATE.format(on_body="self.on = True", extra="")
    assert ("BooleanState", "accepted", "error") in _severities(missing)
