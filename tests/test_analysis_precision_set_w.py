"""Session 22's rules from set W (analyzer-precision-session22.md in bench/results/analyzer-precision-history.tar.xz) across modules,
which the single-module rule examples cannot hold:

- a base method hands ``self`` to a helper imported from another module of the tree that stores
  computed names on what it is handed: the class is dynamic through that method, so only what
  construction itself reads is judged (obspy's SEED blockettes: ``blockette.py`` runs
  ``field.parse_seed(self, data)``, ``fields.py`` runs ``setattr(blockette, self.attribute_name, v)``);
- the same helper imported but never handed ``self``, or storing a literal name, leaves the class
  closed, and the read stays an error;
- a decorator imported from another module whose wrapper stores on the instance before it calls
  the initialiser has set that attribute when the body reads it (MDAnalysis's
  ``@store_init_arguments`` and ``self._kwargs``); one that stores after the call has not;
- (set X) an owner that keeps a parameter annotated with the class (``search_method:
  SearchMethod``) and stores on it (``self.search_method.goal_function = ...``) sets the attribute up
  after construction: a warning naming the store; without the annotation, no evidence, an error;
- a read during construction after ``self._generation_agent.__init__(self, opt)`` (an initialiser
  picked at run time, parlai's RagAgent) may be of what that initialiser stored: a warning that says
  so, as PK003 already said for a skipped base; with no such call the read stays an error.
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_findings

FIELDS = """
class Field:
    def __init__(self, name):
        self.attribute_name = name
    def parse_seed(self, blockette, data):
        setattr(blockette, %s, data.pop(0))
"""

BASE = """
from .fields import Field
class Blockette:
    fields = []
    def __init__(self):
        self.debug = False
    def parse_seed(self, data):
        for field in self.fields:
            field.parse_seed(%s, data)
"""

B48 = """
from .blockette import Blockette
from .fields import Field
class Blockette048(Blockette):
    fields = [Field("sensitivity_gain")]
    def get_resp(self):
        return self.sensitivity_gain
"""


def errors(tmp_path, key: str, handed: str) -> set:
    files = {"fields.py": FIELDS % key, "blockette.py": BASE % handed, "blockette048.py": B48}
    return {(f.cls, f.attr, f.code) for f in package_findings(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()})
            if f.severity.value == "error"}


def test_self_handed_to_a_helper_of_another_module_that_stores_computed_names(tmp_path):
    assert errors(tmp_path, "self.attribute_name", "self") == set()


def test_a_helper_storing_a_literal_name_leaves_the_class_closed(tmp_path):
    assert errors(tmp_path, '"raw"', "self") == {("Blockette048", "sensitivity_gain", "PK003")}


def test_the_helper_handed_something_else_leaves_the_class_closed(tmp_path):
    assert errors(tmp_path, "self.attribute_name", "data") == {("Blockette048", "sensitivity_gain", "PK003")}


UTIL = """
import functools
def store_init_arguments(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        if not hasattr(self, "_kwargs"):
            self._kwargs = dict(kwargs)
        return func(self, *args, **kwargs)
    return wrapper
def stored_after(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        out = func(self, *args, **kwargs)
        self._kwargs = dict(kwargs)
        return out
    return wrapper
"""

READER = """
from .util import %s
class XTCReader:
    @%s
    def __init__(self, dt=1):
        self.dt = self._kwargs.get("dt", dt)
"""


def test_a_decorator_that_stores_before_the_initialiser_runs(tmp_path):
    files = {"util.py": UTIL, "reader.py": READER % ("store_init_arguments", "store_init_arguments")}
    assert {(f.cls, f.attr, f.code) for f in package_findings(tmp_path, files)} == set()


def test_a_decorator_that_stores_after_the_initialiser_does_not_count(tmp_path):
    files = {"util.py": UTIL, "reader.py": READER % ("stored_after", "stored_after")}
    assert {(f.cls, f.attr, f.code) for f in package_findings(tmp_path, files) if f.severity.value == "error"} == \
        {("XTCReader", "_kwargs", "PK002")}


SEARCH = """
class SearchMethod:
    def __call__(self, initial):
        return self.perform_search(initial)
class BeamSearch(SearchMethod):
    def __init__(self, beam_width=8):
        self.beam_width = beam_width
    def perform_search(self, initial):
        return self.goal_function(initial)
"""

ATTACK = """
from .search import SearchMethod
class Attack:
    def __init__(self, goal_function, search_method%s):
        self.goal_function = goal_function
        self.search_method = search_method
        self.search_method.goal_function = self.goal_function
"""


def test_an_owner_storing_on_its_annotated_parameter_sets_it_up_after_construction(tmp_path):
    got = {(f.cls, f.attr, f.code): f.severity.value for f in
           package_findings(tmp_path, {"search.py": SEARCH, "attack.py": ATTACK % ": SearchMethod"})}
    assert got == {("BeamSearch", "goal_function", "PK003"): "warning"}


def test_without_the_annotation_the_store_is_no_evidence(tmp_path):
    got = {(f.cls, f.attr, f.code): f.severity.value for f in
           package_findings(tmp_path, {"search.py": SEARCH, "attack.py": ATTACK % ""})}
    assert got == {("BeamSearch", "goal_function", "PK003"): "error"}


RAG = """
class Generator:
    def __init__(self, opt):
        self.NULL_IDX = 0
class Rag:
    _generation_agent = Generator
    def __init__(self, opt):
        %s
        self.start = self.NULL_IDX + 1
"""


def pk002(tmp_path, call: str) -> set:
    return {(f.cls, f.attr, f.severity.value) for f in package_findings(tmp_path, {"rag.py": RAG % call})
            if f.code == "PK002"}


def test_a_read_after_an_initialiser_chosen_at_run_time_is_a_warning(tmp_path):
    assert pk002(tmp_path, "self._generation_agent.__init__(self, opt)") == {("Rag", "NULL_IDX", "warning")}


def test_without_that_call_the_read_before_assignment_stays_an_error(tmp_path):
    assert pk002(tmp_path, "self.opt = opt") == {("Rag", "NULL_IDX", "error")}
