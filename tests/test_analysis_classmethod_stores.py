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


READER = '''
class BaseData:
    def process(self):
        return self.header.names


class BaseHeader:
    def names(self):
        return 1


class BaseReader:
    header_class = BaseHeader
    data_class = BaseData

    def __init__(self):
        self.header = self.header_class()
        self.data = self.data_class()
        self.data.header = self.header


class Loose:
    def go(self):
        return self.header
'''


def test_an_owner_building_through_a_class_attribute_injects_into_what_it_built(tmp_path):
    """astropy's readers: ``self.data = self.data_class()`` with ``data_class = BaseData`` in the
    owner's body, then ``self.data.header = self.header``: BaseData's ``header`` is the owner's to
    set (two-phase at most); a class no owner builds keeps its error."""
    from _analysed_package import package_findings
    # the injection index reads the tree: a package, not one source
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"r.py": READER})}
    assert found[("BaseData", "header")].severity == "warning" and "from outside the class" in found[("BaseData", "header")].why
    assert found[("Loose", "header")].severity == "error"


def test_errors_in_test_code_are_warnings_unless_strict(tmp_path):
    """A read in test code (tests/ folders, test_*.py, *_test.py, conftest.py) is a warning that
    says why: fixtures and set-up hooks set test classes' attributes from outside."""
    from patchkit.analysis.runner import analyse_paths
    from patchkit.analysis.severity import is_test_path
    assert is_test_path("pkg/tests/x.py") and is_test_path("test_a.py") and is_test_path("a/b_test.py")
    assert is_test_path("conftest.py") and not is_test_path("pkg/testimony.py") and not is_test_path("latest.py")
    src = "class TestA:\n    def __init__(self):\n        self.a = 1\n\n    def test_x(self):\n        return self.fixture_value\n"
    for rel in ("pkg/tests/test_a.py", "pkg/core.py"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(src)
    sev = {}
    for rep in analyse_paths([tmp_path / "pkg"], use_cache=False, jobs=1):
        for f in rep.findings:
            sev[rep.path.split("pkg/")[-1]] = (f.severity, f.why)
    assert sev["tests/test_a.py"][0] == "warning" and "test code" in sev["tests/test_a.py"][1]
    assert sev["core.py"][0] == "error"


TEMPLATES = '''
class _OverloadTemplate:
    def __init__(self, context):
        self.context = context

    def generic(self):
        return self.key, self._impl_cache, self.missing


def make_overload_template(func, cache):
    base = _OverloadTemplate
    dct = dict(key=func, _impl_cache=cache)
    return type(base)("OverloadTemplate_x", (base,), dct)
'''


def test_a_base_that_type_builds_subclasses_from_gets_their_class_attributes(tmp_path):
    """numba's ``make_overload_template``: ``type(base)(name, (base,), dict(key=...))`` builds the
    subclasses that carry ``key``: a warning naming the call, not an error; an attribute no dict
    provides stays an error."""
    from _analysed_package import package_findings
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"templates.py": TEMPLATES})}
    for attr in ("key", "_impl_cache"):
        f = found[("_OverloadTemplate", attr)]
        assert f.severity == "warning" and "type()" in f.why
    assert found[("_OverloadTemplate", "missing")].severity == "error"


CORE = '''
class BaseHeader:
    def __init__(self):
        self.cols = []


class BaseReader:
    header_class = BaseHeader

    def __init__(self):
        self.header = self.header_class()
'''

LATEX = '''
from .core import BaseReader, BaseHeader


class LatexHeader(BaseHeader):
    def start(self):
        return self.latex


class AASTexHeader(LatexHeader):
    def start(self):
        return self.latex + 1


class OtherHeader(BaseHeader):
    def start(self):
        return self.latex


class Latex(BaseReader):
    header_class = LatexHeader

    def __init__(self):
        super().__init__()
        self.header.latex = 1


class AASTex(Latex):
    header_class = AASTexHeader
'''


def test_an_owner_whose_base_builds_through_a_class_attribute_injects_too(tmp_path):
    """astropy's ascii readers: ``BaseReader.__init__`` (another module) builds ``self.header =
    self.header_class()``; ``Latex`` names ``header_class = LatexHeader`` and sets
    ``self.header.latex``; its subclass ``AASTex`` names ``AASTexHeader``. Both headers' ``latex`` is
    the owner's to set (a warning); a header class no owner names keeps its error."""
    from _analysed_package import package_findings
    found = {(f.cls, f.attr): f for f in package_findings(tmp_path, {"core.py": CORE, "latex.py": LATEX})}
    for cls in ("LatexHeader", "AASTexHeader"):
        assert found[(cls, "latex")].severity == "warning", found[(cls, "latex")]
        assert "from outside the class" in found[(cls, "latex")].why
    assert found[("OtherHeader", "latex")].severity == "error"


WEB = '''
class RequestHandler:
    def __init__(self, application, request):
        self.application = application
        self.request = request
        self._finished = False

    def finish(self):
        if self._finished:
            raise RuntimeError("finish() called twice")
        return self.request
'''

STUB = '''
from pkg.web import RequestHandler


class CookieStubHandler(RequestHandler):
    def __init__(self):
        self.application = None
'''


def test_a_stub_subclass_defined_in_test_code_is_judged_as_test_code(tmp_path):
    """tornado's ``CookieTestRequestHandler`` (test/web_test.py) skips ``RequestHandler.__init__`` on
    purpose and the test calls only what it needs: the inherited reads in ``web.py`` are warnings
    (the class lives in test code); the same stub in library code stays an error, and --strict keeps
    the test one an error."""
    from patchkit.analysis import Settings
    from patchkit.analysis.runner import analyse_paths

    def findings(name, stub_rel, settings=Settings()):
        pkg = tmp_path / name / "pkg"
        (pkg / "tests").mkdir(parents=True)
        for rel, text in (("__init__.py", ""), ("tests/__init__.py", ""), ("web.py", WEB), (stub_rel, STUB)):
            (pkg / rel).write_text(text)
        return {(f.cls, f.attr): f for rep in analyse_paths([pkg], settings, use_cache=False, jobs=1)
                for f in rep.findings}
    test_stub = findings("a", "tests/test_web.py")[("CookieStubHandler", "_finished")]
    assert test_stub.severity == "warning" and "test code" in test_stub.why
    assert findings("b", "stubs.py")[("CookieStubHandler", "_finished")].severity == "error"
    strict = findings("c", "tests/test_web.py", Settings(unknown_bases="strict"))
    assert strict[("CookieStubHandler", "_finished")].severity == "error"
