"""PK003 never-assigned (default: error). An attribute is read but no method of the class or its bases ever assigns it.

Logic (links of the read chain in ``judge.py``): ``skipped_base_init``, the only assignments are in a
base ``__init__`` construction never runs (the STANDALONE shape: a subclass without
``super().__init__()``; a warning when the base has the attribute's own setter, ``set_model`` for
``model``); ``shadowed``, only in a method the class overrides; ``helper_of_skipped_init``,
only in a private helper that only the skipped ``__init__`` calls; ``never_assigned``, nowhere in the
class's hierarchy (the field bug: the assignment landed in another class), with the leniencies that
keep it quiet where a subclass, a sibling or the class's users provide it."""
from __future__ import annotations

import ast
import re
import difflib
from typing import Optional

from ...ftypes import Severity
from ..nearname import misspelled
from ..trace import NEXT
from ...rules import Rule
from .base import finding as _finding
from .examples import pk003 as _examples
from ..injection import _index_for
from ..library import BUILTIN_BASES
from ..declared import declared_contract
from ..otherclass import field_bug_shape, other_class_hint, sibling_module_hint

RULE = Rule(
    'PK003', 'never-assigned', 'error',
    summary='An attribute is read but no method of the class or its bases ever assigns it.',
    text=(
        'No method of the class, its bases (followed across modules) or the class body assigns '
        '`self.x`. When another class of the module assigns it, the hint names that class and line: '
        'the wrong-class bug, where the assignment landed in the first `__init__` of the file instead '
        'of the class that reads it.'),
    example="""
class DraftWorker:
    def __init__(self, args):
        self.threshold = args.threshold     # assigned here ...

class TargetWorker:
    def __init__(self, args):
        self.args = args

    def step(self, batch):
        return len(batch) > self.threshold  # PK003: ... but read here
""",
    fix=(
        'Assign the attribute in the `__init__` of the class that reads it (or in a base class whose '
        '`__init__` runs); fix the spelling when the name is a typo.'),
    message='self.{attr} is read but never assigned in {cls}',
    valid=_examples.VALID,
    invalid=_examples.INVALID,
)


def finding(rel, node, cls, attr, why, hint="", sev=None):
    """A PK003 finding (the rule's default severity unless ``sev``)."""
    return _finding(RULE, rel, node, cls, attr, why, hint, sev)


def skipped_base_init(an, site):
    """Assigned in a base ``__init__`` that construction never runs (and, if anywhere else, only
    in that base's other methods): the missing super call. A warning when the class looks like a
    facade over other state, or an unreadable or run-time-chosen initialiser may run the base's."""
    p, t = site.placed, site.trace
    if p is None or not p.skipped_init:
        return NEXT
    ci, rel = t.ci, site.rel
    c, m0, ln = p.init_not_run[0]
    skipped = {k for k, _m2, _ln in p.init_not_run}
    also = [(k, m, n) for k, m, n in p.live if k in skipped]
    implicit = site.mname.startswith("__") and site.mname.endswith("__") and site.mname not in _NOT_PROTOCOL
    excuse = ((None if implicit else facade(an, ci, c)) or through_library(an, t, c) or indirect(t) or
              public_setter(an, ci, site.attr, also)) if not t.strict else None
    reset = "; otherwise only in " + ", ".join(f"{k}.{mm} ({an._at(ci, k, rel, n)})" for k, mm, n in also[:2]) \
        + ", which construction never calls" if also else ""
    return finding(rel, site.node, ci.qualname, site.attr,
                   f"assigned in {c}.{m0} ({an._at(ci, c, rel, ln)}), which construction of {ci.qualname} "
                   f"never runs (missing super().__init__()?)" + reset + site.inherited + (f"; {excuse}" if excuse else ""),
                   "", Severity.WARNING if excuse else Severity.ERROR)


_SETTER = re.compile(r"set(?:_|[A-Z])")


def public_setter(an, ci, attr: str, also) -> Optional[str]:
    """A public method of the skipped base stores a parameter of its own in ``attr``
    (``Callback.set_model(self, model): self.model = model``): the attribute is meant to be handed
    in after construction, and the base ``__init__`` only gave it a placeholder (paddle's hapi
    callbacks, which ``config_callbacks`` always hands the model and the params)."""
    for k, m, _n in also:
        fn = an._cls_by_name(ci, k).methods.get(m)
        if fn is None or not _SETTER.match(m) or m[3:].strip("_").lower() != attr.strip("_").lower() or \
                not fn.args.args:
            continue  # the attribute's own setter by name (set_model for model), not any public method
            # that stores it (parlai's observe, paddle's set_state_dict for _accumulators_holder)
        params = {a.arg for a in fn.args.args[1:] + fn.args.kwonlyargs}
        sn = fn.args.args[0].arg
        if any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Load) and
               isinstance(n.value, ast.Name) and n.value.id == sn for n in ast.walk(fn)):
            continue  # the setter reads the placeholder first (nni's `if self._engine is not None: raise`)
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params and \
                    any(isinstance(x, ast.Attribute) and x.attr == attr and isinstance(x.value, ast.Name) and
                        x.value.id == sn for x in node.targets):
                return f"{k}.{m} is a public setter for it (set up by the object's user after construction?)"
    return None


def shadowed(an, site):
    """Assigned only in methods the class overrides without calling them."""
    p, t = site.placed, site.trace
    if p is None or p.live or not p.shadowed:
        return NEXT
    if handed_to_library_init(t, site.attr):
        return None
    c, m, ln = p.shadowed[0]
    return finding(site.rel, site.node, t.ci.qualname, site.attr,
                   f"only assigned in {c}.{m} ({an._at(t.ci, c, site.rel, ln)}), which {t.ci.qualname} overrides"
                   + site.inherited)


def handed_to_library_init(t, attr: str) -> bool:
    """Construction passed ``attr=...`` to the ``__init__`` of a library base the analyzer cannot
    read, which likely stores it under that name (vllm-ascend's ``NPUWorker.__init__`` calls
    vLLM's ``WorkerBase.__init__(..., local_rank=local_rank, ...)``, which sets ``self.local_rank``;
    a false PK003 of set AK, reported as assigned only in an overridden method)."""
    return not t.strict and t.unknown and attr in t.lib_init_kw


def helper_of_skipped_init(an, site):
    """Assigned only in private helpers that only a skipped base ``__init__`` calls: the missing
    super call, not a two-phase set-up."""
    p, t = site.placed, site.trace
    if p is None:
        return NEXT
    locs = p.effective(t.assigned_anywhere[site.attr])
    by = only_from_skipped_init(an, t.ci, locs, t.inlined)
    if not by:
        return NEXT
    where = ", ".join(f"{c}.{m} ({an._at(t.ci, c, site.rel, ln)})" for c, m, ln in locs[:2])
    return finding(site.rel, site.node, t.ci.qualname, site.attr,
                   f"only assigned in {where}, a private helper that only {by} calls; "
                   f"construction of {t.ci.qualname} never runs it (missing super().__init__()?)" + site.inherited)


def never_assigned(an, site):
    """No method of the class, its bases or the class body assigns it. Quiet (None) for template
    bases, classes with unreadable bases and escapes of the instance; a warning when a sibling, a
    dispatch guard or an abstract contract explains the read; info for mixins."""
    from ..classmodel import _unimplemented_abstract
    from ..mangle import private_part
    t = site.trace
    ci, owner, attr, strict, rel = t.ci, site.owner, site.attr, t.strict, site.rel
    if attr in t.assigned_anywhere:
        return NEXT
    f = t.facts
    typo = misspelled(t, attr) if not strict and attr not in t.lib_init_kw and (t.unknown or t.escapes or any(
        e.kind == "unknown" for e in f.externals)) else None
    if typo and not an._descendant_provides(ci, attr):  # no base provides a near-twin of the class's own name (nearname.py)
        return finding(rel, site.node, ci.qualname, attr,
                       f"no method of {ci.qualname} or its bases assigns it, and self.{typo}, which it has, is "
                       f"spelt almost the same (a misspelling? a base the analyzer cannot read is not taken to "
                       f"provide it)" + site.inherited, f"did you mean self.{typo}?")
    if (t.unknown or t.escapes) and not strict:
        return None
    if not strict and (bool(_unimplemented_abstract(f.classes)) or bool(an._descendants(ci))) and (
            _unimplemented_abstract(f.classes) or (an._raising_template(ci) and an._descendant_provides(ci, attr))
            or (an._descendant_provides(ci, attr) and not field_bug_shape(an, ci, attr, owner))):
        # a template base: a subclass provides it (and is judged on its own). Not when an
        # unrelated class of the module assigns it: that is the field bug's shape (the
        # assignment landed in EagleDraftWorker.__init__ while EAGLEWorkerV2, itself concrete,
        # reads it), whatever its subclasses do. A base with no __init__ of its own builds
        # nothing (timm's senet.Bottleneck: forward() only): its subclasses are its state.
        return None
    if any(e.kind == "unknown" for e in f.externals) and not strict:
        return None
    hint = other_class_hint(an, ci, attr, owner)
    # a builtin base (tuple, dict, str ...; a namedtuple(...) base is a tuple) builds the instance
    builtin = any(e.kind == "closed" and e.name in BUILTIN_BASES for e in f.externals)
    builds = f.field_class or any("__init__" in c.methods for c in f.classes) or builtin
    named_mixin = ci.qualname.split(".")[-1].endswith("Mixin")
    mixin = named_mixin or not builds
    if ((t.assigns_nothing and not builtin) or mixin) and not strict:
        # another class assigning it is the field bug's shape only for a class that builds state;
        # a stateless holder whose owner sets the attribute on it is filled from outside (flaml's
        # AutoMLState: `state.data_size = ...` in the task, `self.data_size` in SearchState too)
        filled = _index_for(an.project, ci).foreign_store(attr, ci.qualname.split(".")[-1]) \
            if hint and not named_mixin else None
        if filled:
            return finding(rel, site.node, ci.qualname, attr,
                           f"the class assigns no instance attributes; {filled} assigns it on an instance from "
                           f"outside the class (a holder its owner fills?)", "", Severity.WARNING)
        if not hint or named_mixin:
            return finding(rel, site.node, ci.qualname, attr,
                           "the class assigns no instance attributes (a mixin or interface?)", "", Severity.INFO)
    plain = private_part(attr) if not hint else None
    if plain:  # `self.__x` in a subclass is `_Sub__x`, not the base's `_Base__x`
        other = next((k for k in sorted(set(t.assigned_anywhere) | f.class_level)
                      if k != attr and private_part(k) == plain), None)
        if other:
            hint = f"private name mangling: self.{plain} in {ci.qualname.split('.')[-1]} is self.{attr}; {other} is another class's"
    if not hint:  # a typo of a name the class does have: `self.optimzer` for `self.optimizer`
        known = set(t.assigned_anywhere) | f.class_level | set(f.fields)
        close = difflib.get_close_matches(attr, sorted(k for k in known if k not in (attr, site.mname)), n=1, cutoff=0.9)
        if close:
            hint = f"did you mean self.{close[0]}?"
    base_read = owner.key != ci.key and not strict
    dispatch = an._dispatch_guard(owner, ci, attr, site.read.conds) if base_read else None
    if dispatch:
        return finding(rel, site.node, ci.qualname, attr, f"no method of {ci.qualname} or its bases assigns it; "
                       f"{dispatch}" + site.inherited, hint, Severity.WARNING)
    sibling = an._sibling_assigning(owner, site.mname, ci, attr) if base_read else None
    if sibling:
        # a base method written for the subclasses that set the attribute (reached through them)
        return finding(rel, site.node, ci.qualname, attr,
                       f"no method of {ci.qualname} or its bases assigns it; {owner.qualname}.{site.mname} "
                       f"relies on subclasses such as {sibling} that do" + site.inherited, hint, Severity.WARNING)
    impl = an._sibling_method(owner, ci, attr) if base_read else None
    if impl:
        # an abstract-method contract: the base calls a method its other subclasses define
        # (celery's BaseBackend._get_task_meta_for, which DisabledBackend leaves out on purpose)
        return finding(rel, site.node, ci.qualname, attr,
                       f"no method of {ci.qualname} or its bases defines it; {impl}, another subclass of "
                       f"{owner.qualname}, defines it as a method (a contract {ci.qualname} leaves "
                       f"unimplemented?)" + site.inherited, hint, Severity.WARNING)
    # a hint (another class assigns it) does not rule the contract out: the field bug's class is built
    declared = declared_contract(an, ci, f, attr) if not strict else None
    if declared:
        return finding(rel, site.node, ci.qualname, attr, f"no method of {ci.qualname} or its bases assigns it; "
                       f"{declared}" + site.inherited, hint, Severity.WARNING)
    return finding(rel, site.node, ci.qualname, attr, f"no method of {ci.qualname} or its bases assigns it" + site.inherited,
                   hint or sibling_module_hint(an, ci, attr, owner))


#: dunders that are not protocol methods Python calls on an instance by itself (print, ==, len, ...)
_NOT_PROTOCOL = frozenset({"__init__", "__new__", "__init_subclass__", "__class_getitem__", "__set_name__",
                           "__post_init__", "__attrs_post_init__"})


# ------------------------------------------------------------------ what explains a skipped __init__
def facade(an, ci, base: str) -> Optional[str]:
    """Why ``ci`` skips ``base.__init__`` on purpose: its classes above ``base`` re-implement at
    least half (and 3 or more) of ``base``'s public methods, so it is a facade over other state
    (EncoderDecoderCache over two sub-caches, aiohttp's EmptyStreamReader), and what is left of
    ``base``'s methods may never be called on it. None when it is an ordinary subclass. (Not asked
    for a read in a protocol dunder such as ``__str__``: Python calls those by itself; obspy's
    ``Blockette060`` re-implemented four of five public methods and still died in ``print``.)"""
    classes = an.facts(ci).classes
    b = next((c for c in classes if c.qualname == base), None)
    if b is None:
        return None
    above = classes[:classes.index(b)]
    public = {m for m in b.methods if not m.startswith("_") and b.method_kind.get(m) not in ("static", "class")}
    redone = {m for m in public if any(m in c.methods for c in above)}
    if len(redone) >= 3 and 2 * len(redone) >= len(public):
        return (f"{ci.qualname} re-implements {len(redone)} of the {len(public)} public methods of {base} "
                f"without running its __init__ (a facade): the inherited method may never be called on it")
    return None


def through_library(an, t, base: str) -> Optional[str]:
    """Construction called an unreadable library class's ``__init__`` that comes before ``base``
    in the MRO: a cooperative library initialiser (or none at all: the lookup goes on) passes
    ``super().__init__()`` on to ``base.__init__`` (keras' TFOptimizer(KerasAutoTrackable,
    BaseOptimizer) through tf's AutoTrackable)."""
    if not t.lib_init_ran and not _init_lookup_reaches_unknown(t):
        return None
    for c in t.facts.linear:
        if getattr(c, "qualname", None) == base:
            return None
        if getattr(c, "kind", None) == "unknown":
            return f"{c.name} (unreadable here) comes first in the MRO: its __init__, if it has one, may pass the call on"
    return None


def _init_lookup_reaches_unknown(t) -> bool:
    """No class before an unreadable library base in the MRO defines ``__init__``: the lookup goes
    into that base, which may define none (the lookup goes on: monai's ``CameraDataset(
    IterableDataset, VideoDataset)`` runs ``VideoDataset.__init__``) or pass it on."""
    from ..model import ClassInfo
    for c in t.facts.linear:
        if isinstance(c, ClassInfo) and "__init__" in c.methods:
            return False
        if getattr(c, "kind", None) == "unknown":
            return True
    return False


def indirect(t) -> Optional[str]:
    """Construction called ``<receiver>.__init__(self, ...)`` where the receiver names no class
    (an attribute or a local holding one): it may be the skipped base's initialiser."""
    from ..trace import indirect_phrase
    call = t.indirect_init
    return f"construction of {t.ci.qualname} {indirect_phrase(call)}, which may be that base's" if call else None


def only_from_skipped_init(an, ci, locs, inlined) -> Optional[str]:
    """The ``__init__`` (``Cls.__init__``) that calls every assigning method, when construction of
    ``ci`` skipped it (a subclass without ``super().__init__()``) and each assigning method is
    either private (``_name``) and called only as ``self._name(...)`` from ``__init__`` methods of
    ``ci``'s MRO, or public and called by such an ``__init__`` in its straight-line body, so that the
    base's construction always ran it (python-can's ``BusABC.__init__`` -> ``self.set_filters(...)``,
    which a setter calls again later): the missing super call, not a two-phase set-up. None
    otherwise."""
    from ..scan import ensure_scanned
    classes = [k for k in an.facts(ci).classes if not k.module.external]
    for _c, m, _ln in locs:  # cheap first: some __init__ of the MRO refers to every assigning method
        if m.startswith("__") or not any(m in ensure_scanned(k).self_refs.get("__init__", ()) for k in classes):
            return None
    refs = _self_references(an, ci)
    callers: set[str] = set()
    order = {k.key: i for i, k in enumerate(classes)}
    first_init, first_other = len(classes), len(classes)
    for _c, m, _ln in locs:
        private = m.startswith("_")
        from_init = False
        for k, name, fn, sn in refs.get(m, ()):
            if name == m:
                continue
            if name != "__init__":
                if private:
                    return None
                # a public method called again later (a setter): still set up by __init__, unless
                # a set-up hook of a class above that __init__ in the MRO runs it unconditionally:
                # the class that skips the base's __init__ runs it itself (errbot's
                # FullStackTest.setUp -> TestBot.setup, before every test)
                if name in _SET_UP_HOOKS and _stated(fn, sn, m):
                    first_other = min(first_other, order.get(k.key, len(classes)))
                continue
            first_init = min(first_init, order.get(k.key, len(classes)))
            if not private and not _called_at_top(fn, sn, m):
                return None
            from_init = True
            callers.add(f"{k.qualname}.{name}")
        if not from_init:
            return None
    if not callers or any(c in inlined for c in callers) or first_other < first_init:
        return None
    return ", ".join(sorted(callers))


def _self_references(an, ci) -> dict:
    """name -> [(class, method name, function, its self name)] of every ``self.<name>`` in the
    methods of ``ci``'s MRO (the tree's classes), computed once per class."""
    from ..astutil import fast_walk, first_param
    cache = an.__dict__.setdefault("_pk_self_references", {})
    got = cache.get(ci.key)
    if got is None:
        got = cache[ci.key] = {}
        for k in an.facts(ci).classes:
            if k.module.external:
                continue
            for name, fn in k.methods.items():
                sn = first_param(fn)
                if not sn:
                    continue
                seen = set()
                for n in fast_walk(fn):
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == sn \
                            and n.attr not in seen:
                        seen.add(n.attr)
                        got.setdefault(n.attr, []).append((k, name, fn, sn))
    return got


#: methods a framework runs on an instance before using it (unittest, pytest, Lightning-style hooks)
_SET_UP_HOOKS = frozenset({"setUp", "asyncSetUp", "setup_method", "setup"})


def _top_calls(fn, sn: str, m: str, kinds=(ast.Expr,)):
    """The ``self.<m>(...)`` calls that are statements of ``fn``'s own body (``kinds``: an
    expression statement, or an assignment's value too), outside any branch or loop."""
    for st in fn.body:
        v = st.value if isinstance(st, kinds) else None
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == m and \
                isinstance(v.func.value, ast.Name) and v.func.value.id == sn:
            yield v


def _stated(fn, sn: str, m: str) -> bool:
    """``self.<m>(...)`` is a statement of ``fn``'s own body, outside any branch or loop."""
    return next(_top_calls(fn, sn, m), None) is not None


def _called_at_top(fn, sn: str, m: str) -> bool:
    """``self.<m>(...)`` is a statement of ``fn``'s body itself (not inside a branch or a loop) and
    hands it one of ``fn``'s own parameters: the constructor delegates its arguments to it
    (``self.set_filters(can_filters)``). A bare ``self.setup()`` may be a set-up step that
    callers are meant to run themselves later (two-phase)."""
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} - {sn}
    for v in _top_calls(fn, sn, m, (ast.Expr, ast.Assign)):
        passed = v.args + [k.value for k in v.keywords]
        return any(isinstance(n, ast.Name) and n.id in params for a in passed for n in ast.walk(a))
    return False
