"""``cls.x = ...`` in a classmethod makes ``x`` exist (on the class) once it has run: a read of
``self.x`` is a two-phase warning naming the classmethod, not "never assigned"; pytest's
``setup_class`` / unittest's ``setUpClass`` run before every test method, so their stores count as
present (astropy's masked-array tests: 279 false errors from one ``setup_class``)."""
from __future__ import annotations

from patchkit.analysis import analyse_source

SRC = '''
class Registry:
    @classmethod
    def configure(cls, n):
        cls.size = n

    def get(self):
        return self.size


class TestA:
    @classmethod
    def setup_class(cls):
        cls.a = 1

    def helper(self):
        return self.a


class TestB(TestA):
    def __init__(self, name):
        self.name = name

    def test_y(self):
        return self.helper() + self.b


class Plain:
    def __init__(self):
        self.q = 1

    def get(self):
        return self.missing
'''


def test_classmethod_stores_are_two_phase_and_test_class_setup_runs_first():
    found = {(f.cls, f.attr): f for f in analyse_source("t.py", SRC)}
    size = found[("Registry", "size")]
    assert size.code == "PK004" and size.severity == "warning" and "Registry.configure" in size.why
    assert ("TestA", "a") not in found and ("TestB", "a") not in found
    assert found[("TestB", "b")].severity == "error"  # setup_class does not make everything present
    assert found[("Plain", "missing")].severity == "error"


FACTORY = '''
class Middleware:
    def __init__(self, settings):
        self.settings = settings

    @classmethod
    def from_crawler(cls, crawler):
        o = cls(crawler.settings)
        o.crawler = crawler
        return o

    def started(self):
        return self.crawler.stats


class Sub(Middleware):
    def other(self):
        return self.crawler, self.spider
'''


def test_a_factory_classmethod_that_sets_attributes_on_its_instance_is_two_phase():
    """scrapy's ``from_crawler``: ``o = cls(...); o.crawler = crawler``. ``crawler`` exists on every
    instance the factory built: a two-phase warning naming it, inherited too; an attribute nothing
    sets stays an error."""
    found = {(f.cls, f.attr): f for f in analyse_source("m.py", FACTORY)}
    crawler = found[("Middleware", "crawler")]
    assert crawler.severity == "warning" and "from_crawler" in crawler.why
    assert found[("Sub", "spider")].severity == "error"
