"""Session 20's rules from set U (analyzer-precision-session20.md in
bench/results/analyzer-precision-history.tar.xz), each with a case
of the same shape that is still reported:

- a dict literal passed to a method decides the branches its body takes on it (ManiSkill's
  ``self.reset(options=dict(reconfigure=True))`` in ``BaseEnv.__init__``), through locals that
  only top-level statements assign;
- attrs' generated ``__attrs_init__``, called by the class's own ``__init__``, sets every field
  (bentoml's ``ModelInfo``);
- a subclass's class attribute hides a base's ``__slots__`` entry (bentoml's ``JSON._mime_type``);
- a class ABCMeta refuses to instantiate (an abstract method left unimplemented) is not judged as
  an instance itself (tf-models' ``_AsyncTrainer``).
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from hypothesis import given, settings, strategies as stx

from patchkit.analysis.localconsts import (UNKNOWN, DictConst, forget_passed, literal, stable_dict_params,
                                           tracked_locals, value)
from patchkit.analysis.runner import analyse_paths


def findings(tmp_path: Path, text: str) -> set:
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(textwrap.dedent(text))
    reps = analyse_paths([pkg], use_cache=False)
    return {(f.cls, f.attr, f.code) for r in reps for f in r.findings}


ENV = """
class BaseEnv:
    def __init__(self):
        self.freq = 0
        obs = self.reset(seed=1, options=OPTIONS)
        self.space = self.agent.space

    def reset(self, seed=None, options=None):
        if options is None:
            options = dict()
        MUTATE
        reconfigure = options.get("reconfigure", False)
        reconfigure = reconfigure or self.freq != 0
        if reconfigure:
            self._reconfigure(options)
        return self.get_obs()

    def _reconfigure(self, options):
        self.agent = Agent()
        self.sensors = {}

    def get_obs(self):
        return self.agent, self.sensors


class Agent:
    space = None


class PickCube(BaseEnv):
    pass
"""


def env(options: str, mutate: str = "pass") -> str:
    return ENV.replace("OPTIONS", options).replace("MUTATE", mutate)


def test_a_dict_literal_argument_decides_the_branch_its_callee_takes(tmp_path):
    for options in ("dict(reconfigure=True)", '{"reconfigure": 1}', 'dict(reconfigure=True, other="x")'):
        assert not {f for f in findings(tmp_path, env(options)) if f[1] in ("agent", "sensors")}, options


def test_the_other_value_or_a_mutated_or_unknown_dict_still_reports(tmp_path):
    cases = (
        env("dict(reconfigure=False)"),                      # the branch is not taken
        env("dict()"),                                       # .get's default
        env("dict(reconfigure=True)", 'options["reconfigure"] = False'),  # changed before the read
        env("dict(reconfigure=True)", "self.tweak(options)"),  # another function may change it first
        env("dict(reconfigure=flag())"),                     # not a literal
    )
    for text in cases:
        got = findings(tmp_path, text + "\ndef flag():\n    return True\n")
        assert ("BaseEnv", "agent", "PK002") in got, text


def test_a_local_assigned_in_a_branch_is_not_tracked(tmp_path):
    text = env("dict(reconfigure=True)").replace(
        'reconfigure = options.get("reconfigure", False)',
        'reconfigure = options.get("reconfigure", False)\n        if seed == 7:\n            reconfigure = False')
    assert ("BaseEnv", "agent", "PK002") in findings(tmp_path, text)


def test_attrs_init_sets_every_field_before_a_validator_reads_them(tmp_path):
    text = """
    import typing as t
    import attr

    @attr.define(frozen=True, init=False)
    class ModelInfo:
        tag: str
        _options: t.Dict[str, t.Any]
        labels: t.Dict[str, str] = attr.field(converter=dict)

        def __init__(self, tag, options, labels):
            BEFORE
            self.__attrs_init__(tag=tag, options=options, labels=labels)
            self.validate()

        def validate(self):
            return self.tag, self._options, self.labels
    """
    assert not findings(tmp_path, text.replace("BEFORE", "pass"))
    # counterpart: a field read before the generated initialiser runs
    got = findings(tmp_path, text.replace("BEFORE", "print(self.tag)"))
    assert ("ModelInfo", "tag", "PK002") in got
    # counterpart: a plain class has no __attrs_init__ to set anything
    got = findings(tmp_path, text.replace("@attr.define(frozen=True, init=False)", ""))
    assert ("ModelInfo", "_options", "PK002") in got or ("ModelInfo", "_options", "PK003") in got


def test_a_subclass_class_attribute_hides_a_base_slot_but_not_the_other_way(tmp_path):
    from patchkit.analysis.rules.examples import pk003  # the rule's own examples, run as a package
    valid = next(e for e in pk003.VALID if e.name.startswith("a subclass's class attribute hides a base's __slots__"))
    invalid = next(e for e in pk003.INVALID if e.name.startswith("a subclass's slot hides a base's class attribute"))
    assert not {f for f in findings(tmp_path, valid.source) if f[0] == "JSON"}
    assert ("Slotted", "kind", "PK003") in findings(tmp_path, invalid.source)


def _fn(src: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(src)).body[0]


def test_tracked_locals_and_stable_dicts():
    fn = _fn("""
    def f(self, a, opts=None, other=None):
        x = 1
        y = 2
        if a:
            y = 3
        for z in a:
            pass
        try:
            pass
        except E as w:
            pass
        w = 1
        r = opts.get("k")
        self.g(opts)
        other["k"] = 1
        return other.get("k")
    """)
    assert tracked_locals(fn) == frozenset({"x", "r"})
    # a: tested and iterated (out of sight); other: an item store; self: its methods may change it
    assert stable_dict_params(fn) == frozenset({"opts"})
    looped = _fn("""
    def f(opts, xs):
        for x in xs:
            v = opts.get("k")
            self.g(opts)
    """)
    assert "opts" not in stable_dict_params(looped)  # the next turn reads what g may have changed
    aliased = _fn("""
    def f(opts):
        o = opts
        o["k"] = 1
        return opts.get("k")
    """)
    assert "opts" not in stable_dict_params(aliased)


def test_a_call_that_takes_the_dict_makes_the_walk_forget_it():
    consts = {"opts": DictConst((("k", 1),)), "n": 1}
    forget_passed(ast.parse("f(1, opts)", mode="eval").body, consts)
    assert consts == {"n": 1}
    consts = {"opts": DictConst((("k", 1),))}
    forget_passed(ast.parse("f(x=opts)", mode="eval").body, consts)
    assert consts == {}


_SCALARS = stx.one_of(stx.booleans(), stx.integers(-2, 2), stx.sampled_from(["", "a", None]))


def _exprs():
    leaf = _SCALARS.map(lambda v: (repr(v), v))

    def combine(children):
        def boolop(op, items):
            return (f"({f' {op} '.join(src for src, _v in items)})", items)
        return stx.one_of(
            stx.tuples(stx.sampled_from(["or", "and"]), stx.lists(children, min_size=2, max_size=3)).map(
                lambda t: boolop(*t)),
            children.map(lambda c: (f"(not {c[0]})", c)),
        )
    return stx.recursive(leaf, combine, max_leaves=6)


@settings(max_examples=200, deadline=None)
@given(_exprs(), stx.dictionaries(stx.sampled_from(["k", "j"]), _SCALARS, max_size=2))
def test_value_agrees_with_python_on_boolean_expressions_over_known_names(expr, d):
    src, _ = expr
    consts = {"d": DictConst(sorted(d.items())), "n": True}
    full = f"(({src}) or d.get('k', 0)) and (n or d.get('j'))"
    got = value(ast.parse(full, mode="eval").body, consts)
    assert got is not UNKNOWN
    assert got == eval(full, {}, {"d": dict(d), "n": True})


def test_an_unknown_operand_makes_the_value_unknown_unless_short_circuited():
    consts = {"a": True}
    assert value(ast.parse("a or b", mode="eval").body, consts) is True
    assert value(ast.parse("b or a", mode="eval").body, consts) is UNKNOWN
    assert value(ast.parse("a and b", mode="eval").body, consts) is UNKNOWN
    assert literal(ast.parse("dict(k=f())", mode="eval").body) is UNKNOWN
    assert literal(ast.parse("{'k': 1, 'k': 2}", mode="eval").body) is UNKNOWN


def test_a_class_abcmeta_cannot_instantiate_is_judged_through_its_subclasses(tmp_path):
    from patchkit.analysis.rules.examples.pk003 import _ASYNC_TRAINER  # the rule's own example
    trainer = """
class Trainer(_AsyncTrainer):
    def __init__(self, ds):
        StandardTrainer.__init__(self, ds)
        StandardEvaluator.__init__(self, ds)
    def train_step(self, it):
        pass
"""
    abstract = _ASYNC_TRAINER % ""
    assert not findings(tmp_path, abstract + trainer)
    # counterpart: the abstract method implemented, so _AsyncTrainer can be built without _eval_ds
    concrete = _ASYNC_TRAINER % "    def train_step(self, it):\n        pass\n"
    assert ("_AsyncTrainer", "_eval_ds", "PK003") in findings(tmp_path, concrete + trainer)
    # counterpart: without ABCMeta, @abstractmethod is not enforced and the class can be built
    plain = abstract.replace("(metaclass=abc.ABCMeta)", "")
    assert ("_AsyncTrainer", "_eval_ds", "PK003") in findings(tmp_path, plain + trainer)
