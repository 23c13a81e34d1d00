"""Rules from set O's false positives
(analyzer-precision-fresh17.md in bench/results/analyzer-precision-sheets.tar.xz, seed 44,
measured untuned first), each next to a case of the same shape that stays an error.

- abstract-annotation: ``x: T`` declared without a value, never assigned, on a class no code in
  view builds (airflow's ``BaseDBManager.metadata``): a warning; the same class built anywhere in
  the tree (another module included) keeps the error;
- classproperty-cls: ``@classproperty def name(cls)`` reads the class, an instance property the
  instance;
- attrs-generated-init: ``self.__attrs_init__(...)`` in an attrs class's own ``__init__``.
"""
from __future__ import annotations

import pytest

from patchkit.ftypes import Severity

from test_analysis_precision_rules import findings, tree

MANAGER = """\
    class BaseDBManager:
        \"\"\"Abstract base DB manager for external DBs.\"\"\"

        metadata: dict
        version_table_name: str
        supports_dropping: bool = False

        def __init__(self, session):
            self.session = session

        def tables(self):
            return self.metadata["tables"], self.version_table_name
    """


def test_a_declared_attribute_of_a_class_nobody_builds_is_a_contract(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/manager.py": MANAGER})
    got = findings(root)
    assert got[("BaseDBManager", "metadata", "PK003")] == Severity.WARNING
    assert got[("BaseDBManager", "version_table_name", "PK003")] == Severity.WARNING


def test_the_same_class_built_in_another_module_keeps_the_error(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/manager.py": MANAGER,
                           "pkg/run.py": "from .manager import BaseDBManager\n\n"
                                         "def upgrade(session):\n    return BaseDBManager(session).tables()\n"})
    got = findings(root)
    assert got[("BaseDBManager", "metadata", "PK003")] == Severity.ERROR
    assert got[("BaseDBManager", "version_table_name", "PK003")] == Severity.ERROR


def test_an_attribute_declared_nowhere_stays_an_error_on_an_unbuilt_class(tmp_path):
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/manager.py": MANAGER.replace(
        'self.metadata["tables"]', 'self.metdata["tables"]')})
    got = findings(root)
    assert got[("BaseDBManager", "metdata", "PK003")] == Severity.ERROR


CLASSPROP = """\
    from abc import ABC, abstractmethod
    from dataclasses import dataclass


    class classproperty:
        def __init__(self, method):
            self.method = method

        def __get__(self, instance, cls=None):
            return self.method(cls)


    class ReferenceModels:
        class BaseReference(ABC):
            required: set = set()

            @{deco}
            def reference_name({recv}):
                return {recv}.__name__

            @abstractmethod
            def _evaluate(self):
                raise NotImplementedError

            def serialize(self):
                return {{"type": self.reference_name}}

        @dataclass
        class FixedDeadline(BaseReference):
            when: int

            def _evaluate(self):
                return self.when
    """


def test_a_class_property_reads_the_class_and_an_instance_property_the_instance(tmp_path):
    ok = tree(tmp_path / "a", {"pkg/__init__.py": "", "pkg/deadline.py": CLASSPROP.format(deco="classproperty", recv="cls")})
    assert not [k for k in findings(ok) if k[1] == "__name__"]
    bad = tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/deadline.py": CLASSPROP.format(deco="property", recv="self")})
    assert findings(bad)[("ReferenceModels.FixedDeadline", "__name__", "PK003")] == Severity.ERROR


ATTRS = """\
    import {mod}


    {deco}
    class SerializedDAG:
        dag_id: str
        display: str

        def __init__(self, *, dag_id):
            self.__attrs_init__(dag_id=dag_id, display=dag_id)

        def __repr__(self):
            return self.display
    """


def test_attrs_generates_attrs_init_beside_a_class_s_own_init(tmp_path):
    ok = tree(tmp_path / "a", {"pkg/__init__.py": "", "pkg/dag.py": ATTRS.format(mod="attrs", deco="@attrs.define")})
    assert findings(ok) == {}
    # a plain class has no __attrs_init__: the call fails
    bad = tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/dag.py": ATTRS.format(mod="abc", deco="")})
    assert findings(bad)[("SerializedDAG", "__attrs_init__", "PK002")] == Severity.ERROR


FORMSETS = """\
    class BaseFormSet:
        def __init__(self, data=None):
            self.data = data or {}


    def formset_factory(form, formset=BaseFormSet, extra=1):
        return type(form.__name__ + "FormSet", (formset,), {"form": form, "extra": extra})


    class BaseInlineFormSet(BaseFormSet):
        def __init__(self, data=None, instance=None):
            self.instance = instance
            super().__init__(data)
            self.fk_name = self.fk.name

        def save_new(self):
            return {self.fk.name: self.instance}


    def inlineformset_factory(parent_model, model, form, formset=BaseInlineFormSet, fk_name=None):
        kwargs = {"form": form, "formset": formset, "extra": 3}
        FormSet = formset_factory(**kwargs)
        {store}
        return FormSet
    """


@pytest.mark.parametrize("store, severity", [
    ("FormSet.fk = fk_name", Severity.WARNING),   # a class attribute of every class the factory makes
    ("FormSet.other = fk_name", Severity.ERROR),  # nothing gives `fk`
])
def test_a_store_on_the_class_a_factory_makes_from_this_one(tmp_path, store, severity):
    """django's inlineformset_factory: ``FormSet = modelformset_factory(model, **kwargs)`` with
    ``formset=BaseInlineFormSet`` in kwargs, then ``FormSet.fk = fk``."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/models.py": FORMSETS.replace("{store}", store)})
    got = findings(root)
    assert got[("BaseInlineFormSet", "fk", "PK003")] == severity
    assert got[("BaseInlineFormSet", "fk", "PK002")] == severity


def test_a_subclass_that_inherits_the_declaration_and_leaves_it_out_keeps_the_error(tmp_path):
    """pykeen's ScoreConsumer declares ``flatten: bool``; TopK sets it, CountScoreConsumer (never
    built in the tree) does not, and the inherited finalize() reads it."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/predict.py": """\
        class ScoreConsumer:
            flatten: bool

            def finalize(self):
                return self.flatten


        class TopKScoreConsumer(ScoreConsumer):
            flatten = False


        class CountScoreConsumer(ScoreConsumer):
            def __init__(self):
                self.batch_count = 0
        """})
    assert findings(root)[("CountScoreConsumer", "flatten", "PK003")] == Severity.ERROR


def test_a_metaclass_that_fills_the_class_namespace(tmp_path):
    """pytensor's MetaType: ``dct["_props_dict"] = _props_dict`` in __new__ is a class attribute."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": """\
        from abc import ABCMeta


        class MetaType(ABCMeta):
            def __new__(cls, name, bases, dct):
                def _props_dict(self):
                    return {}
                dct["_props_dict"] = _props_dict
                return super().__new__(cls, name, bases, dct)


        class Op(metaclass=MetaType):
            def __init__(self, lower=True):
                self.lower = lower

            def describe(self):
                return self._props_dict(), self._missing
        """})
    got = findings(root)
    assert ("Op", "_props_dict", "PK003") not in got
    assert got[("Op", "_missing", "PK003")] == Severity.ERROR


CIPHERS = """\
    _algs = {{}}


    class _CipherMetaclass(type):
        def __new__(cls, name, bases, dct):
            if not name.startswith("_"):
                dct["name"] = name[7:]
            the_class = super().__new__(cls, name, bases, dct)
            _algs[name] = the_class
            return the_class


    class _AEADCipher(metaclass=_CipherMetaclass):
        key_len = 16

        def __init__(self, key=None):
            if key is None:
                key = b"\\0" * self.key_len
            self.ready = {{}}
            super(_AEADCipher, self).__setattr__("key", key)
            if hasattr(self, "pc_cls"):
                self._cipher = (self.pc_cls(key), self.pc_cls_mode)
            else:
                self._cipher = self.cipher_cls(key)

        def __setattr__(self, name, val):
            if name == "key":
                self.ready[name] = True
            super(_AEADCipher, self).__setattr__(name, val)

        def rekey(self):
            return self.key, self.{read}


    class Cipher_AES_128_GCM(_AEADCipher):
        pc_cls = bytes
        pc_cls_mode = "gcm"


    class Cipher_AES_128_CCM(_AEADCipher):
        cipher_cls = bytes
    """


@pytest.mark.parametrize("read, bad", [("key_len", False), ("nonce", True)])
def test_a_cipher_family_under_a_registering_metaclass(tmp_path, read, bad):
    """scapy's TLS ciphers: a metaclass that only registers, ``super().__setattr__("key", key)``
    around an own ``__setattr__``, and ``hasattr(self, "pc_cls")`` choosing between class
    attributes only some subclasses define. Nothing but a read of a name nothing sets is an error."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/cipher.py": CIPHERS.format(read=read)})
    got = {k: v for k, v in findings(root).items() if v == Severity.ERROR}
    assert got == ({("Cipher_AES_128_CCM", "nonce", "PK003"): Severity.ERROR} if bad else {}) or \
        (bad and {k[1] for k in got} == {"nonce"})


@pytest.mark.parametrize("store, quiet", [
    ("self.listener.funcname = node", True),   # the helper sets it on the instance it keeps
    ("self.seen = node", False),               # the helper keeps it but sets nothing on it
])
def test_a_helper_that_keeps_the_instance_and_sets_attributes_on_it(tmp_path, store, quiet):
    """mako's FunctionDecl: ``ParseFunc(self).visit(expr)`` keeps the declaration as
    ``self.listener`` and its visit_* methods set ``listener.funcname`` and the argument lists."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/ast.py": f"""\
        class ParseFunc:
            def __init__(self, listener):
                self.listener = listener

            def visit(self, node):
                {store}


        class FunctionDecl:
            def __init__(self, code):
                self.code = code
                ParseFunc(self).visit(code)

            def describe(self):
                return self.funcname
        """})
    got = findings(root)
    assert (("FunctionDecl", "funcname", "PK003") not in got) is quiet


@pytest.mark.parametrize("override, flagged", [("description = None", False), ("title = None", True)])
def test_a_class_attribute_hides_the_base_property_of_that_name(tmp_path, override, flagged):
    """falcon's MultipartParseError: ``description = None`` in the class body replaces the
    ``description`` property of HTTPError, which reads ``self._media_type``."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/errors.py": f"""\
        class HTTPError:
            def __init__(self, status, media_type="json"):
                self.status = status
                self._media_type = media_type

            @property
            def description(self):
                return self._media_type


        class MultipartParseError(HTTPError):
            {override}

            def __init__(self):
                self.status = 400
        """})
    from patchkit.analysis.runner import analyse_paths
    classes = {c for r in analyse_paths([root / "pkg"], use_cache=False) for f in r.findings
               if f.attr == "_media_type" for c in (f.cls, *f.also)}
    assert ("MultipartParseError" in classes) is flagged


def test_a_classvar_declared_without_a_value_is_set_on_the_class_elsewhere(tmp_path):
    """falcon's MultipartFormHandler: ``_ASGI_MULTIPART_FORM: ClassVar[type]`` in the class body,
    assigned on the class by falcon/asgi/app.py at import."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/multipart.py": """\
        from typing import ClassVar


        class MultipartFormHandler:
            _ASGI_MULTIPART_FORM: ClassVar[type]
            _plain: type

            def __init__(self, options=None):
                self.options = options

            def deserialize_async(self, stream):
                return self._ASGI_MULTIPART_FORM(stream), self._plain


        def handler():
            return MultipartFormHandler()
        """})
    got = findings(root)
    assert got[("MultipartFormHandler", "_ASGI_MULTIPART_FORM", "PK003")] == Severity.WARNING
    assert got[("MultipartFormHandler", "_plain", "PK003")] == Severity.ERROR  # built, and not a ClassVar


@pytest.mark.parametrize("bases, flagged", [("(HoeffdingTree, Regressor)", False), ("(HoeffdingTree, Classifier)", True)])
def test_a_read_under_isinstance_of_a_class_it_does_not_derive_from_is_dead(tmp_path, bases, flagged):
    """river's HoeffdingTree.draw(): ``if isinstance(self, base.Classifier): ... self.classes``;
    the regressor trees never take that branch."""
    root = tree(tmp_path, {"pkg/__init__.py": "", "pkg/tree.py": f"""\
        class Classifier:
            pass


        class Regressor:
            pass


        class HoeffdingTree:
            def __init__(self, depth):
                self.depth = depth

            def draw(self):
                if isinstance(self, Classifier):
                    return len(self.classes)
                return 1


        class TreeModel{bases}:
            def __init__(self):
                super().__init__(3)


        def build():
            return TreeModel()
        """})
    from patchkit.analysis.runner import analyse_paths
    classes = {c for r in analyse_paths([root / "pkg"], use_cache=False) for f in r.findings
               if f.attr == "classes" for c in (f.cls, *f.also)}
    assert ("TreeModel" in classes) is flagged
