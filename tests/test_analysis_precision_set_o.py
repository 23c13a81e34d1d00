"""Rules from set O's false positives (bench/results/analyzer-precision-fresh17.md, seed 44, measured
untuned first), each next to a case of the same shape that stays an error.

- abstract-annotation: ``x: T`` declared without a value, never assigned, on a class no code in
  view builds (airflow's ``BaseDBManager.metadata``): a warning; the same class built anywhere in
  the tree (another module included) keeps the error;
- classproperty-cls: ``@classproperty def name(cls)`` reads the class, an instance property the
  instance;
- attrs-generated-init: ``self.__attrs_init__(...)`` in an attrs class's own ``__init__``.
"""
from __future__ import annotations

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
