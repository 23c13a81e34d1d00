"""Compound statements of the construction walk: branches as alternatives (pruned by the
conditions they contradict), loops that may not run, context managers that may swallow
exceptions, try/except/finally and match."""
from __future__ import annotations

import ast
from dataclasses import replace

from typing import Optional

from .astutil import dotted, memo_on, self_attr
from .conditions import (CAUGHT, EVENT, NO_CASE, SUPPRESSED, ZERO_LOOP, Cond, _catches_attribute_error, _irrefutable,
                         class_name_truth,
                         class_const_truth, tested_self_attr, exact_type_test, frame_truth)
from .ladderlocals import before_else, decided_arm
from .localconsts import empty_iterable
from .presence import absent_attr_truth, unstored_attr_truth
from .state import Flow, State, _join, merge


class CompoundStatements:
    """Mixin of Constructor: if/while/for/with/try/match."""

    def branch_truth(self, test, st, fr) -> Optional[bool]:
        """The truth of a branch test (``if``, or a conditional expression) on the states ``st``
        where it is known: a parameter bound by the call, the class being built, a class constant,
        a class default not yet stored, an attribute no code can have set. None: either way."""
        t = frame_truth(test, fr)
        if t is None:
            t = self.exact_type_truth(test, fr)
        if t is None and "__class__" not in self.seen:
            t = class_name_truth(test, fr.selfname, self.concrete.qualname.split(".")[-1])
        if t is None and self.class_consts:
            t = class_const_truth(test, fr.selfname, self.class_consts)
        if t is None and self.class_defaults and not self.summarising:
            t = self.fresh_default_truth(test, st, fr)
        if t is None and self.never_present is not None:
            t = absent_attr_truth(test, fr.selfname, self.never_present, self.seen)
            if t is None and not self.summarising:
                t = unstored_attr_truth(test, fr.selfname, self.never_present.own_only, self.seen, st)
        return t

    def s_If(self, s, st, fr):
        st = self.expr(s.test, st, fr)
        t = self.branch_truth(s.test, st, fr)
        if t is False:
            before_else(s, fr)  # an elif in the else arm is still on every path
        flows = []
        if t is not False:
            flows.append(self.block(s.body, self.assume(s.test, True, st, fr), fr))
        if t is not True:
            flows.append(self.block(s.orelse, self.assume(s.test, False, st, fr), fr) if s.orelse
                         else Flow(normal=self.assume(s.test, False, st, fr)))
        if t is not None:
            decided_arm(s, t, fr)  # `flag = True` in the one arm that ran: flag's value after the ladder
        return _join(flows)

    def fresh_default_truth(self, test, st, fr) -> Optional[bool]:
        """The truth of a test of ``self.a`` (``not self._window``, ``self.a is None``) on paths that
        have not stored ``a`` yet, where the class body binds ``a`` to a constant (class_defaults):
        the instance still reads the class's value. None when any path has stored it."""
        attr = tested_self_attr(test, fr.selfname)
        if attr is None or attr not in self.class_defaults or any(attr in x.assigned for x in st):
            return None
        return class_const_truth(test, fr.selfname, {attr: self.class_defaults[attr]})

    def exact_type_truth(self, test, fr) -> Optional[bool]:
        """``if self.__class__ is Explainer:`` while constructing a subclass of Explainer: false,
        until construction assigns ``self.__class__`` (shap's Explainer.__init__ re-classes the
        instance, then runs the new class's ``__init__``, only for a bare Explainer)."""
        got = exact_type_test(test, fr.selfname)
        if got is None or "__class__" in self.seen:
            return None
        target = self.resolve_init_class(fr.cls, got[0])
        if not hasattr(target, "key"):
            return None
        return (target.key == self.concrete.key) == got[1]

    def s_While(self, s, st, fr):
        st = self.expr(s.test, st, fr)
        t = frame_truth(s.test, fr)
        body = self.block(s.body, self.assume(s.test, True, st, fr) if t is None else st, fr)
        again = merge(body.normal + body.continues)
        if t is True:  # only break leaves `while True`
            exits = body.breaks
            return Flow(normal=merge(exits), returns=body.returns)
        skipped = [x.with_cond(Cond(ZERO_LOOP, True, s.lineno, f"the while loop at line {s.lineno} never runs", EVENT))
                   for x in st]
        normal_end = merge(skipped + again)
        if s.orelse:
            e = self.block(s.orelse, normal_end, fr)
            return Flow(normal=merge(e.normal + body.breaks), returns=body.returns + e.returns,
                        breaks=e.breaks, continues=e.continues)
        return Flow(normal=merge(normal_end + body.breaks), returns=body.returns)

    def s_For(self, s, st, fr):
        st = self.expr(s.iter, st, fr)
        it = s.iter
        if self.class_consts and isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) and \
                it.value.id == fr.selfname and it.attr in self.class_consts and self.class_consts[it.attr] in ((), ""):
            # ``for name in self.scope_predefined_names:`` over the class's own empty constant: never runs
            return self.block(s.orelse, st, fr) if s.orelse else Flow(normal=st)
        if empty_iterable(it, fr.consts, fr.fn):  # over a ``*args`` / ``**kwargs`` the call left empty
            return self.block(s.orelse, st, fr) if s.orelse else Flow(normal=st)
        body_in = self.store(s.target, st, fr)
        body = self.block(s.body, body_in, fr)
        skipped = [x.with_cond(Cond(ZERO_LOOP, True, s.lineno, f"the for loop at line {s.lineno} runs zero times", EVENT))
                   for x in st]
        normal_end = merge(skipped + body.normal + body.continues)
        if s.orelse:
            e = self.block(s.orelse, normal_end, fr)
            return Flow(normal=merge(e.normal + body.breaks), returns=body.returns + e.returns)
        return Flow(normal=merge(normal_end + body.breaks), returns=body.returns)

    def s_With(self, s, st, fr):
        swallow = quiet = False
        for item in s.items:
            st = self.expr(item.context_expr, st, fr)
            name = (dotted(item.context_expr) or "").split(".")[-1].lower()
            # ``suppress_warnings()`` / ``ignore_warnings()`` filter warnings (crewai's, numba's)
            named = ("suppress" in name or "ignore" in name) and "warn" not in name
            seen = _generator_cm(item.context_expr, fr)
            if seen is not None:
                swallow = swallow or seen  # the @contextmanager's own body says whether it catches
            elif named:
                swallow = True
            # a method the name says is quiet keeps its block's reads unjudged, as before, even when
            # its body shows it swallows nothing (zfit's ``with self.ignore_maxiter():`` sets the flag
            # its setters test); only its stores now count on every path (salabim). A module
            # function's body was read before too: its reads stay judged
            quiet = quiet or (named and not isinstance(getattr(item.context_expr, "func", None), ast.Name))
            if item.optional_vars is not None:
                st = self.store(item.optional_vars, st, fr)
        inner = replace(fr, guarded=fr.guarded or swallow or quiet)
        mark = len(self.del_log)
        body = self.block(s.body, st, inner)
        if swallow:
            gone = set(self.del_log[mark:])
            starts = st + [State(x.assigned - gone, x.conds) for x in st] if gone else st
            lost = [x.with_cond(Cond(SUPPRESSED, True, s.lineno, f"the context manager at line {s.lineno} swallows an exception", EVENT))
                    for x in merge(starts)]
            body.normal = merge(body.normal + lost)
        return body

    def s_Try(self, s, st, fr):
        catches_attr = any(_catches_attribute_error(h) for h in s.handlers)
        inner = replace(fr, guarded=fr.guarded or catches_attr)
        mark = len(self.del_log)
        # the leading stores of a name or constant cannot raise: a handler starts after them
        # (bilby's ``try: self.file_name = file_name; ... except IOError: log(self.file_name)``)
        quiet = self.quiet_prefix(s.body, fr)
        if quiet:
            st = self.block(s.body[:quiet], st, inner).normal
        body = self.block(s.body[quiet:], st, inner)
        # the body can raise after a deletion: handlers also start from states without what it deleted
        gone = set(self.del_log[mark:])
        starts = st + [State(x.assigned - gone, x.conds) for x in st] if gone else st
        flows = []
        ok = self.block(s.orelse, body.normal, fr) if s.orelse else Flow(normal=body.normal)
        flows.append(ok)
        for h in s.handlers:
            entry = [x.with_cond(Cond(CAUGHT, True, h.lineno, f"an exception caught at line {h.lineno}", EVENT))
                     for x in merge(starts)]
            flows.append(self.block(h.body, entry, fr))
        joined = _join(flows)
        joined.returns += body.returns
        joined.breaks += body.breaks
        joined.continues += body.continues
        if s.finalbody:
            fin = self.block(s.finalbody, joined.normal, fr)
            joined.normal = fin.normal
            joined.returns += fin.returns
        return joined

    def quiet_prefix(self, body, fr) -> int:
        """How many leading statements of ``body`` cannot raise: ``x = y`` / ``self.a = 1`` / ``pass``
        (a name or constant stored in a local or in an attribute without a property setter)."""
        if self.resolve_method("__setattr__", None) is not None:
            return 0
        n = 0
        for stmt in body:
            if isinstance(stmt, ast.Pass):
                n += 1
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None
            if not targets or not isinstance(stmt.value, (ast.Name, ast.Constant)) or \
                    not all(isinstance(t, ast.Name) or _plain_store(self, self_attr(t, fr.selfname)) for t in targets):
                break
            n += 1
        return n

    def s_Match(self, s, st, fr):
        st = self.expr(s.subject, st, fr)
        flows = []
        irrefutable = False
        for case in s.cases:
            cur = st
            if case.guard is not None:
                cur = self.expr(case.guard, cur, fr)
            flows.append(self.block(case.body, cur, fr))
            if case.guard is None and _irrefutable(case.pattern):
                irrefutable = True
        if not irrefutable:
            flows.append(Flow(normal=[x.with_cond(Cond(NO_CASE, True, s.lineno,
                                                        f"no case of the match at line {s.lineno} matches", EVENT))
                                      for x in st]))
        return _join(flows)

    s_AsyncFor = s_For
    s_AsyncWith = s_With
    s_TryStar = s_Try


def _plain_store(walk, attr) -> bool:
    """``self.<attr> = v`` only binds: an attribute with no property setter along the MRO."""
    return attr is not None and walk.resolve_setter(attr) is None


def _generator_cm(expr, fr):
    """For ``with f(...)`` where ``f`` is a ``@contextmanager`` function of the class's module:
    whether it can swallow an exception raised in the block (an ``except`` around its ``yield``).
    None when the context manager is something else (then its name decides). numba's
    ``_suppress_deprecation_warning_nopython_not_supplied`` only filters warnings."""
    if not isinstance(expr, ast.Call):
        return None
    if isinstance(expr.func, ast.Name):
        fn = fr.cls.module.functions.get(expr.func.id)
        fns = [fn] if fn is not None and _is_cm(fn) else []
    elif isinstance(expr.func, ast.Attribute) and (dotted(expr.func.value) or "").split(".")[0] not in \
            fr.cls.module.imports:
        # ``with self.env.suppress_trace():``: the module's @contextmanager methods of that name
        # (salabim's Environment.suppress_trace only sets a flag around its yield); a plain method of
        # the same name elsewhere is not the one a ``with`` uses, nor is a module's function
        # (``contextlib.suppress``)
        fns = [c.methods[expr.func.attr] for c in fr.cls.module.classes.values()
               if expr.func.attr in c.methods and _is_cm(c.methods[expr.func.attr])]
    else:
        return None
    if not fns:
        return None
    # a handler that raises again (a transaction's rollback, then ``raise``) lets the exception out
    return any(memo_on(fn, "_pk_cm_catches", lambda fn=fn: any(
        isinstance(node, ast.Try) and any(not any(isinstance(r, ast.Raise) for r in ast.walk(h)) for h in node.handlers)
        and any(isinstance(y, (ast.Yield, ast.YieldFrom)) for b in node.body for y in ast.walk(b))
        for node in ast.walk(fn))) for fn in fns)


def _is_cm(fn) -> bool:
    return any((dotted(d) or "").split(".")[-1] in ("contextmanager", "asynccontextmanager") for d in fn.decorator_list)

