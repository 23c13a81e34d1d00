"""Session 45's rules from set BJ (analyzer-precision-session45.md in
bench/results/analyzer-precision-history.tar.xz), with the cases of the same shape that stay reported.

- Instances made elsewhere (madeelsewhere.py): guppy3's gsl descriptions start as an
  ``UntypedDescription`` and are re-classed (``self.__class__ = dc``); heapy's families are mixed
  into a class made at run time (``class C(Mixin, self.ArgAtomFamily)``). 15 of guppy's 19 sampled
  false error groups.
- A library's metaclass sets class attributes (pygments' ``RegexLexerMeta.__call__`` stores
  ``cls._all_tokens`` before a lexer's ``__init__`` runs; pybuilder vendors pygments under
  ``_vendor`` and imports it as ``pygments``, which resolves to the environment's copy).
- A tree metaclass called like ``type()`` (cerberus's ``Validator = InspectedValidator('Validator',
  (BareValidator,), {})``) builds a subclass whose metaclass sets attributes: the base is open.
"""
from __future__ import annotations

import textwrap

from _analysed_package import package_keys as findings

DESCRIPTIONS = """
class UntypedDescription:
    def __init__(self, env, src):
        self.env = env
        self.src = src

    def resolve_type(self, table):
        dc = table[self.src]
        self.__class__ = dc


class Description:
    def __init__(self):
        self.items = []

    def text(self):
        return self.src.upper() + self.label


class Repeat(Description):
    def kind(self):
        return self.env, self.count


TABLE = {"repeat": Repeat}


def make(env, src):
    d = UntypedDescription(env, src)
    d.resolve_type(TABLE)
    return d
"""


FIELD_BUG = """
class EagleDraftWorker:
    def __init__(self, server_args):
        self.spec_disable_batch_threshold = server_args.t


class EAGLEWorkerV2:
    def __init__(self, server_args):
        self.server_args = server_args

    def forward_batch_generation(self, batch):
        return len(batch) > self.spec_disable_batch_threshold


WORKERS = {"eagle": EAGLEWorkerV2}
"""


def test_a_reclassed_instance_holds_what_the_reclassing_class_stored(tmp_path):
    got = findings(tmp_path, {"descr.py": DESCRIPTIONS})
    assert ("Repeat", "env", "PK003", "warning") in got
    assert ("Description", "src", "PK003", "warning") in got
    # nothing stores count or label on any object: those reads stay errors
    assert ("Repeat", "count", "PK003", "error") in got
    assert ("Description", "label", "PK003", "error") in got


def test_a_class_built_by_name_is_judged_as_built(tmp_path):
    """``Repeat(...)`` somewhere in the tree: that instance was never an UntypedDescription."""
    got = findings(tmp_path, {"descr.py": DESCRIPTIONS + "\n\ndef direct():\n    return Repeat()\n"})
    assert ("Repeat", "env", "PK003", "error") in got
    assert ("Repeat", "src", "PK003", "error") in got or ("Description", "src", "PK003", "error") in got


def test_reclassing_another_object_is_not_a_source(tmp_path):
    """``other.__class__ = ...`` says nothing about what ``other`` holds."""
    text = DESCRIPTIONS.replace("        self.__class__ = dc", "        other = object.__new__(Base)\n        other.__class__ = dc")
    text = "class Base:\n    pass\n\n" + text
    got = findings(tmp_path, {"descr.py": text})
    assert ("Repeat", "env", "PK003", "error") in got


FAMILIES = """
class Family:
    def __init__(self, mod):
        self.mod = mod
        self.Set = set

    def add_export(self, name):
        return name


class ArgAtomFamily(Family):
    pass


class Mixin:
    def __init__(self, mod, arg):
        self.specotup = (arg,)


class EqualsFamily(Mixin):
    def c_test(self, x):
        return self.Set(x), self.mod, self.add_export("x"), self.missing


def mixed(Mixin, mod, arg):
    class C(Mixin, ArgAtomFamily):
        def __init__(self, mod, arg):
            ArgAtomFamily.__init__(self, mod)
            Mixin.__init__(self, mod, arg)
    return C(mod, arg)


def family(mod):
    return mixed(EqualsFamily, mod, 1)
"""


def test_a_class_mixed_into_a_runtime_class_gets_what_the_host_gives(tmp_path):
    got = findings(tmp_path, {"fam.py": FAMILIES})
    assert ("EqualsFamily", "Set", "PK003", "warning") in got
    assert ("EqualsFamily", "mod", "PK003", "warning") in got
    assert ("EqualsFamily", "add_export", "PK003", "warning") in got
    assert ("EqualsFamily", "missing", "PK003", "error") in got


def test_the_host_must_be_a_base_beside_a_local_one(tmp_path):
    """A local class whose bases are all module names combines nothing unknown: no host."""
    got = findings(tmp_path, {"fam.py": FAMILIES.replace("def mixed(Mixin, mod, arg):", "def mixed(kind, mod, arg):")})
    assert ("EqualsFamily", "mod", "PK003", "error") in got


def test_the_field_bug_in_a_tree_that_reclasses_stays_an_error(tmp_path):
    """The field bug's shape (the threshold stored in another class's __init__) in a tree with a
    re-classing class that does not store it: still an error."""
    got = findings(tmp_path, {"worker.py": FIELD_BUG, "descr.py": DESCRIPTIONS})
    assert ("EAGLEWorkerV2", "spec_disable_batch_threshold", "PK003", "error") in got


def test_a_librarys_metaclass_sets_class_attributes(tmp_path, monkeypatch):
    from patchkit.analysis import external
    site = tmp_path / "site" / "lexlib"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text(textwrap.dedent("""
        class LexerMeta(type):
            def __call__(cls, *args, **kwds):
                if '_tokens' not in cls.__dict__:
                    cls._all_tokens = {}
                return type.__call__(cls, *args, **kwds)


        class RegexLexer(metaclass=LexerMeta):
            def __init__(self, **options):
                self.options = options
    """))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    external._PATHS.clear()
    got = findings(tmp_path, {"lexers.py": """
        from lexlib import RegexLexer


        class CSharpLexer(RegexLexer):
            def __init__(self, **options):
                if 'basic' not in self._all_tokens:
                    self._tokens = {}
                RegexLexer.__init__(self, **options)

            def level(self):
                return self.levelname
    """})
    assert not [k for k in got if k[1] == "_all_tokens"]
    assert ("CSharpLexer", "levelname", "PK003", "error") in got


BARE_VALIDATOR = """
        class BareValidator:
            def __init__(self, schema):
                self.schema = schema

            def normalize(self, doc):
                return [x for x in doc if x not in self.normalization_rules]
"""


def test_a_tree_metaclass_called_as_a_type_factory_opens_the_base(tmp_path):
    got = findings(tmp_path, {"validator.py": BARE_VALIDATOR + """


        class InspectedValidator(type):
            def __init__(cls, *args):
                super().__init__(*args)
                cls.normalization_rules = {}


        Validator = InspectedValidator('Validator', (BareValidator,), {})
    """})
    assert ("BareValidator", "normalization_rules", "PK003", "error") not in got


def test_a_class_combined_by_type_elsewhere_reads_what_its_partners_give(tmp_path):
    """Set BK (feedparser 6.0.14): ``StrictFeedParser = type('StrictFeedParser', (_StrictFeedParser,
    _FeedParserMixin, object), {})`` in another module; ``_StrictFeedParser``'s reads of what the
    mixin gives are the combination's. A read no partner gives stays an error."""
    got = findings(tmp_path, {
        "strict.py": """
            class _StrictFeedParser(object):
                def __init__(self, baseuri):
                    self.baseuri = baseuri
                    super().__init__()

                def start(self, name):
                    self.track_namespace(name)
                    return self.namespaces_in_use, self.depth
        """,
        "mixin.py": """
            class _FeedParserMixin(object):
                def __init__(self):
                    self.namespaces_in_use = {}

                def track_namespace(self, name):
                    return name
        """,
        "api.py": """
            from .strict import _StrictFeedParser
            from .mixin import _FeedParserMixin

            StrictFeedParser = type('StrictFeedParser', (_StrictFeedParser, _FeedParserMixin, object), {})
        """})
    assert ("_StrictFeedParser", "track_namespace", "PK003", "warning") in got
    assert ("_StrictFeedParser", "namespaces_in_use", "PK003", "warning") in got
    assert ("_StrictFeedParser", "depth", "PK003", "error") in got


def test_an_unrelated_reclassing_class_does_not_excuse_the_field_bug(tmp_path):
    """A class of another module that re-classes itself and stores the attribute is no source for
    a class its module never hands on (review of session 45)."""
    lazy = """
        class Lazy:
            def __init__(self, t):
                self.spec_disable_batch_threshold = t

            def become(self, cls):
                self.__class__ = cls
    """
    got = findings(tmp_path, {"worker.py": FIELD_BUG, "lazy.py": lazy})
    assert ("EAGLEWorkerV2", "spec_disable_batch_threshold", "PK003", "error") in got


def test_a_reclassing_that_names_another_class_does_not_excuse_the_field_bug(tmp_path):
    lazy = """
        class Other:
            pass


        class Lazy:
            def __init__(self, t):
                self.spec_disable_batch_threshold = t

            def become(self):
                self.__class__ = Other
    """
    got = findings(tmp_path, {"worker.py": FIELD_BUG + textwrap.dedent(lazy)})
    assert ("EAGLEWorkerV2", "spec_disable_batch_threshold", "PK003", "error") in got


def test_a_runtime_mixer_the_class_is_never_handed_to_does_not_excuse_the_field_bug(tmp_path):
    util = """
        from .worker import EagleDraftWorker


        def with_logging(base):
            class Logged(base, EagleDraftWorker):
                pass
            return Logged
    """
    got = findings(tmp_path, {"worker.py": FIELD_BUG, "util.py": util})
    assert ("EAGLEWorkerV2", "spec_disable_batch_threshold", "PK003", "error") in got


def test_a_type_call_of_another_modules_class_of_the_same_name_is_no_partner(tmp_path):
    got = findings(tmp_path, {
        "a.py": """
            class Parser:
                def __init__(self):
                    self.buf = []

                def feed(self):
                    return self.depth


            PARSERS = [Parser]
        """,
        "b.py": """
            class Parser:
                pass


            class Depth:
                def __init__(self):
                    self.depth = 0


            C = type("C", (Parser, Depth), {})
        """})
    assert ("Parser", "depth", "PK003", "error") in got


def test_a_metaclass_that_sets_nothing_does_not_open_the_base(tmp_path):
    got = findings(tmp_path, {"validator.py": BARE_VALIDATOR + """


        class Plain(type):
            pass


        Validator = Plain('Validator', (BareValidator,), {})
    """})
    assert ("BareValidator", "normalization_rules", "PK003", "error") in got
