"""Construction flow: which attributes are assigned on every path through ``__init__``.

A path state is (assigned attributes, conditions known on the path). Branches are
alternatives; states whose conditions contradict a test are pruned, which is what makes
correlated flags (``if flag: self.x = ...`` ... ``if flag: use(self.x)``) come out right.
Helpers called as ``self.m()`` and ``super().__init__()`` / ``Base.__init__(self)`` are
inlined along the concrete class's MRO.
"""
from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from .callargs import bind_constants  # noqa: F401  (re-exported)
from .calls import CallSemantics
from .localconsts import UNKNOWN, tracked_locals, value
from .localflags import bind as bind_flag, implied_by_locals
from .compound import CompoundStatements
from .exprflow import ExpressionFlow
from .conditions import (EVENT, VALUE, Cond, _catches_attribute_error, _human, _simple_text, conjuncts, const_truth,  # noqa: F401
                         frame_truth, norm_test)
from .presence import _hasattr_self, implied_attrs, may_drop_attributes
from .selfclass import in_class_dict, is_self_class
from .astutil import dotted, first_param, is_super_call, self_attr, super_member
from .callargs import partial_of_base_init
from .model import ClassInfo
from .state import MAX_DEPTH, MAX_STATES, Budget, BudgetExceeded, Flow, Frame, ReadHook, State, merge  # noqa: F401



#: what other modules and tests import from here (the walk's parts live in their own modules)
__all__ = ["Constructor", "State", "Flow", "Frame", "Budget", "BudgetExceeded", "MAX_DEPTH", "MAX_STATES",
           "merge", "bind_constants", "norm_test", "conjuncts", "implied_attrs", "const_truth", "frame_truth",
           "_simple_text", "_catches_attribute_error"]

class Constructor(CallSemantics, CompoundStatements, ExpressionFlow):
    """Walks construction of one concrete class. ``mro`` holds ClassInfo or external names."""

    def __init__(self, concrete: ClassInfo, mro: list, resolve_method, on_read: ReadHook,
                 on_escape: Callable[[ast.Call, Frame], None], resolve_init_class,
                 is_noreturn_call: Callable[[ast.Call, Frame], bool]):
        self.concrete = concrete
        self.mro = mro
        self.resolve_method = resolve_method          # (name, after_cls|None) -> (ClassInfo, fn) | None
        self.resolve_init_class = resolve_init_class  # dotted name in frame's module -> ClassInfo | str
        self.on_read = on_read
        self.on_escape = on_escape
        self.is_noreturn_call = is_noreturn_call
        self.stack: list[tuple] = []
        self.external_init_ran = False
        #: depth of call summaries being walked (calls.py): their start state stores nothing
        self.summarising = 0
        #: keyword names handed to a library ``__init__`` the analyzer cannot read
        #: (``super().__init__(vllm_config=..., local_rank=local_rank)``): it likely stores them
        self.external_init_kw: set = set()
        #: ``<receiver>.__init__(self, ...)`` through a receiver that names no class (an attribute or
        #: local holding one: parlai's ``self._generation_agent.__init__(self, opt)``): what it ran
        self.indirect_init: Optional[str] = None
        #: line of a ``getattr(self, <computed name>)`` seen during construction: a method chosen at
        #: run time may run here (BaseHTTPRequestHandler.handle_one_request -> do_POST)
        self.dynamic_dispatch: Optional[int] = None
        self.inlined: set[str] = set()
        self.resolve_setter = lambda name: _setter_along(mro, name)
        #: every attribute some construction path assigns / deletes (survives state merging)
        self.seen: set[str] = set()
        self.deleted: set[str] = set()
        #: every deletion in walk order (a try body's deletions reach its handlers)
        self.del_log: list[str] = []
        #: flag attribute -> attributes its truth implies (``self.has_x = hasattr(self, "x")``)
        self.implies: dict[str, frozenset] = {}
        #: local name -> attribute it was stored in (``self.layout = layout``): facts about the
        #: local are facts about the attribute too
        self.aliases: dict[str, str] = {}
        #: class attributes bound to a constant in a class body of the MRO that nothing ever rebinds
        #: (checker.class_constants): ``if self.decode_audio:`` always takes the same branch
        self.class_consts: dict[str, object] = {}
        #: the same bindings when methods rebind them on the instance (mixins.ClassDefaults): a
        #: path that has not stored the attribute yet still reads the class's value
        self.class_defaults: dict[str, object] = {}
        #: name -> True when nothing can ever give the instance that attribute (None: unknown)
        self.never_present = None
        #: name -> True when only a store on the instance can give it (no class attribute, field,
        #: library or dynamic source); None: not known for this class
        self.instance_only = None
        #: a class of the tree -> its MRO (set by the driver; ``Base.prop.fset`` looks the setter up along it)
        self.mro_of: Callable = lambda cls: [cls]
        #: (class, method, guarded, constants, entry assigned set) -> exit states (conditions relative to entry)
        self.memo: dict[tuple, list[State]] = {}
        self.budget: Optional[Budget] = None
        #: (class, method) -> attributes its decorators store before its body runs (decorated.py)
        self.entry_stores: Optional[Callable] = None
        self.entry_calls: Optional[Callable] = None
        #: (attribute, target, value, frame) of each ``self.x = value`` walked before a library
        #: base's ``__init__`` ran (set by the driver only for nn.Module subclasses: pk006.py)
        self.before_base_init: Optional[Callable] = None

    # ---------------------------------------------------------------- entry
    def run(self, start: State, init: Optional[tuple[ClassInfo, ast.FunctionDef]]) -> list[State]:
        if init is None:
            return [start]
        cls, fn = init
        return self.call_function(cls, fn, [start], depth=0)


    # ---------------------------------------------------------------- statements
    def block(self, body: list[ast.stmt], states: list[State], fr: Frame) -> Flow:
        out = Flow()
        cur = states
        budget = self.budget
        for stmt in body:
            if not cur:
                break
            if budget is not None:
                budget.spend(len(cur))
            f = self.stmt(stmt, cur, fr)
            out.returns += f.returns
            out.breaks += f.breaks
            out.continues += f.continues
            cur = merge(f.normal) if f.normal else []
        out.normal = cur
        return out

    def stmt(self, s: ast.stmt, st: list[State], fr: Frame) -> Flow:
        meth = getattr(self, "s_" + s.__class__.__name__, None)
        if meth is None:
            st = self.expr_children(s, st, fr)
            return Flow(normal=st)
        return meth(s, st, fr)

    def s_Expr(self, s, st, fr):
        return Flow(normal=self.expr(s.value, st, fr))

    def s_Pass(self, s, st, fr):
        return Flow(normal=st)

    def s_Assign(self, s, st, fr):
        st = self.expr(s.value, st, fr)
        for t in s.targets:
            if isinstance(t, ast.Name):
                # init = getattr(super(), "__init__") binds super().__init__; so does
                # functools.partial(super().__init__, p), kept as the call (its arguments are unknown)
                v = super_member(s.value)
                if partial_of_base_init(s.value) is not None:
                    fr.bound_super[t.id] = s.value
                elif isinstance(v, ast.Attribute) and is_super_call(v.value) or is_super_call(v):
                    fr.bound_super[t.id] = v
                else:
                    fr.bound_super.pop(t.id, None)
            self._early_store(t, s.value, fr)
            st = self.store(t, st, fr, s.value)
            st = self.record_value(t, s.value, st, fr)
        st = bind_flag(s, st, fr, self._getter_returns)  # `in_init = self._x is None`: its truth on each path
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and s.targets[0].id in tracked_locals(fr.fn):
            # a local only top-level statements assign: its value from the known names holds on
            # every path until the next one, and decides later tests (``reconfigure = options.get(...)``)
            v = value(s.value, fr.consts)
            if v is UNKNOWN:
                fr.consts.pop(s.targets[0].id, None)
            else:
                fr.consts[s.targets[0].id] = v
        return Flow(normal=st)

    def s_AnnAssign(self, s, st, fr):
        if s.value is None:
            return Flow(normal=st)
        st = self.expr(s.value, st, fr)
        self._early_store(s.target, s.value, fr)
        st = self.store(s.target, st, fr, s.value)
        return Flow(normal=self.record_value(s.target, s.value, st, fr))

    def _early_store(self, t, value, fr) -> None:
        if self.before_base_init is not None and not self.external_init_ran and not self.summarising:
            a = self_attr(t, fr.selfname)
            if a is not None:
                self.before_base_init(a, t, value, fr)

    def record_value(self, t, value, st, fr):
        """``self.disabled = True`` makes ``disabled`` a known fact on this path (and drops old facts
        about it), so later reads guarded by ``if self.disabled: return`` correlate."""
        a = self_attr(t, fr.selfname)
        if a is None:
            chain = dotted(t) if isinstance(t, ast.Attribute) else None
            if chain and chain.startswith(fr.selfname + ".") and isinstance(value, ast.Constant):
                # self.config.flag = True: later tests of self.config.flag know it on this path
                key = chain[len(fr.selfname) + 1:]
                return [State(x.assigned, frozenset(c for c in x.conds if c.key not in (key, f"{key} is None"))
                              | {Cond(key, bool(value.value), t.lineno, chain, VALUE),
                                 Cond(f"{key} is None", value.value is None, t.lineno, f"{chain} is None", VALUE)})
                        for x in st]
            return st
        keys = (a, f"{a} is None")
        eq_prefix = f"{a} == "
        out = []
        same_name = isinstance(value, ast.Name) and value.id == a  # self.use_y = use_y: one key
        if same_name:
            fr.kept.add(a)
        for x in st:
            # same name: facts about the local are now facts about the attribute; facts about the
            # attribute from before this function began are stale
            conds = frozenset(c for c in x.conds if (c.key not in keys and not c.key.startswith(eq_prefix))
                              or (same_name and c not in fr.entry_conds))
            # value facts (origin VALUE) follow from a branch, they are not one
            if isinstance(value, ast.Name) and value.id != a:
                self.aliases[value.id] = a
                # facts already known about the local (`if use_y: ...` before `self.use_y = use_y`)
                # are facts about the attribute from now on
                pat = re.compile(rf"\b{re.escape(value.id)}\b")
                conds |= {c.renamed(pat.sub(a, c.key)) for c in conds
                          if c.key not in keys and c.origin != EVENT and pat.search(c.key)}
            implied = implied_attrs(value, True, fr.selfname)
            if implied:  # self.has_x = hasattr(self, "x"): has_x true later implies x exists
                self.implies[a] = frozenset(implied)
            if isinstance(value, ast.Constant):
                conds |= {Cond(a, bool(value.value), t.lineno, f"self.{a}", VALUE),
                          Cond(f"{a} is None", value.value is None, t.lineno, f"self.{a} is None", VALUE)}
                if isinstance(value.value, (str, int)) and not isinstance(value.value, bool):
                    # self.layer_type = "full_attention": a later `== "linear_attention"` test is false
                    lit = ast.unparse(value)
                    conds |= {Cond(f"{a} == {lit}", True, t.lineno, f"self.{a} == {lit}", VALUE)}
            elif isinstance(value, (ast.List, ast.Dict, ast.Tuple, ast.Set, ast.Call, ast.Lambda)):
                conds |= {Cond(f"{a} is None", False, t.lineno, f"self.{a} is None", VALUE)}
            out.append(State(x.assigned, conds))
        return out

    def s_AugAssign(self, s, st, fr):
        st = self.expr(s.value, st, fr)
        a = self_attr(s.target, fr.selfname)
        if a is not None:
            self.read(a, s.target, fr, st)
            return Flow(normal=[x.add(a) for x in st])
        st = self.expr(s.target, st, fr)
        return Flow(normal=st)

    def s_Delete(self, s, st, fr):
        for t in s.targets:
            a = self_attr(t, fr.selfname)
            if a is not None:
                self.deleted.add(a)
                self.del_log.append(a)
                st = [x.remove(a) for x in st]
            else:
                st = self.expr(t, st, fr)
        return Flow(normal=st)

    def s_Return(self, s, st, fr):
        if s.value is not None:
            st = self.expr(s.value, st, fr)
        return Flow(returns=st)

    def s_Raise(self, s, st, fr):
        if s.exc is not None:
            self.expr(s.exc, st, fr)
        return Flow()

    def s_Assert(self, s, st, fr):
        t = const_truth(s.test)
        st = self.expr(s.test, st, fr)
        if t is False:
            return Flow()
        return Flow(normal=self.assume(s.test, True, st, fr))

    def s_Break(self, s, st, fr):
        return Flow(breaks=st)

    def s_Continue(self, s, st, fr):
        return Flow(continues=st)

    def s_FunctionDef(self, s, st, fr):
        for d in s.decorator_list:
            st = self.expr(d, st, fr)
        params = {a.arg for a in s.args.posonlyargs + s.args.args + s.args.kwonlyargs}
        if not s.decorator_list and fr.selfname not in params:
            fr.local_funcs[s.name] = s  # a closure over self: its body runs when it is called
        else:
            fr.local_funcs.pop(s.name, None)
        return Flow(normal=st)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, s, st, fr):
        return Flow(normal=st)

    def s_Global(self, s, st, fr):
        return Flow(normal=st)

    s_Nonlocal = s_Global
    s_Import = s_Global
    s_ImportFrom = s_Global

    def assume(self, test: ast.expr, pol: bool, st: list[State], fr: Frame) -> list[State]:
        """States that survive the fact ``test == pol``, with the fact recorded."""
        out = []
        facts = conjuncts(test, pol)
        implied = set(implied_attrs(test, pol, fr.selfname)) | implied_by_locals(test, pol, fr) | \
            in_class_dict(test, pol, fr.selfname, fr.fn)
        implied |= {x for a in implied for x in self._getter_returns(a)}
        for node, p in facts:
            if p and self.implies:
                implied |= self.implies.get(norm_test(node, fr.selfname), frozenset())
        for x in st:
            ok = True
            for node, p in facts:
                key = norm_test(node, fr.selfname)
                if x.contradicts(key, p) or (not p and _hasattr_self(node, fr.selfname) in x.assigned
                                             and not may_drop_attributes(self.mro)):
                    ok = False  # ``if not hasattr(self, "g"):`` on a path that has stored g
                    break
            if not ok:
                continue
            for node, p in facts:
                key = norm_test(node, fr.selfname)
                x = x.with_cond(Cond(key, p, test.lineno, _human(node)))
                for local, attr in self.aliases.items():
                    if local in key:
                        alias = re.sub(rf"\b{re.escape(local)}\b", attr, key)
                        if alias != key:
                            x = x.with_cond(Cond(alias, p, test.lineno, _human(node)))
            if implied:
                x = x.add(*implied)
            out.append(x)
        return out

    def _getter_returns(self, name: str) -> tuple:
        """``hasattr(self, "cfg")`` true on a property whose getter is ``return self._cfg``: the
        getter ran without AttributeError, so ``_cfg`` is there too (nemo's ``ModelPT.cfg``)."""
        target = self.resolve_method(name, None)
        if target is None or target[2] != "property":
            return ()
        body = [b for b in target[1].body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return):
            a = self_attr(body[0].value, first_param(target[1]) or "self") if body[0].value is not None else None
            return (a,) if a else ()
        return ()

    def _plain_setter(self, fn) -> bool:
        """The setter gets the assigned value as it stands: no decorator but ``@x.setter`` wraps
        it and no ``__setattr__`` of the tree's classes intercepts the store."""
        return all(dotted(d) is not None and dotted(d).endswith(".setter") for d in fn.decorator_list) and \
            self.resolve_method("__setattr__", None) is None

    # ---------------------------------------------------------------- stores and expressions
    def store(self, t: ast.expr, st: list[State], fr: Frame, value: Optional[ast.expr] = None) -> list[State]:
        a = self_attr(t, fr.selfname)
        if a is not None:
            setter = self.resolve_setter(a)
            if setter is not None:  # `self.x = v` on a property runs its setter, with v as its value
                call = None if value is None or not self._plain_setter(setter[1]) else \
                    ast.Call(ast.Attribute(ast.Name(fr.selfname, ast.Load()), a, ast.Load()), [value], [])
                return self.call_function(setter[0], setter[1], st, fr.depth + 1, fr.guarded, call)
            if st:
                self.seen.add(a)
            return [x.add(a) for x in st]
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                st = self.store(e.value if isinstance(e, ast.Starred) else e, st, fr)
            return st
        if isinstance(t, ast.Starred):
            return self.store(t.value, st, fr)
        if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str) \
                and (dotted(t.value) or "") == f"{fr.selfname}.__dict__":
            if st:  # self.__dict__["x"] = v stores x, past any __setattr__
                self.seen.add(t.slice.value)
            return [x.add(t.slice.value) for x in st]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == fr.selfname and \
                not fr.cls.module.external:  # not a library's (UserDict.update behind an unread `if dict is not None`)
            item = self.resolve_method("__setitem__", None)  # `self[k] = v` runs the class's __setitem__
            if item is not None and item[2] == "method":
                st = self.expr_children(t, st, fr)
                call = None if value is None else ast.Call(ast.Attribute(
                    ast.Name(fr.selfname, ast.Load()), "__setitem__", ast.Load()), [t.slice, value], [])
                return self.call_function(item[0], item[1], st, fr.depth + 1, fr.guarded, call)
        if isinstance(t, ast.Attribute) and is_self_class(t.value, fr.selfname, fr.fn):
            return [x.add(t.attr) for x in st]  # ``type(self).x = v``: a class attribute the instance sees
        if isinstance(t, (ast.Attribute, ast.Subscript)):
            return self.expr_children(t, st, fr)
        return st


def _setter_along(mro, name: str):
    """(class, setter) of the property ``name`` the instance sees: the first class of the MRO that
    binds ``name`` decides (a subclass's ``key = None`` shadows its base's property)."""
    for c in mro:
        if not isinstance(c, ClassInfo):
            continue
        if name in c.setters:
            return c, c.setters[name]
        if name in c.class_names and not _keeps_setter(c.methods.get(name)):
            return None
    return None


def _keeps_setter(fn) -> bool:
    """``@Base.prop.getter`` / ``@Base.prop.deleter``: a copy of the property with its setter."""
    return fn is not None and any((dotted(d) or "").endswith((".getter", ".deleter")) for d in getattr(fn, "decorator_list", ()))
