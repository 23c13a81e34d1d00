"""Expressions of the construction walk: the order in which their parts run (a lambda's body
never, a generator's first iterable only, ``and``/``or`` operands on the states their earlier
operands leave, both arms of a conditional expression), reads of ``self.<x>`` (a property read runs
its getter now) and walrus stores. Mixed into flow.Constructor."""
from __future__ import annotations

import ast
from dataclasses import replace

from .astutil import COMPREHENSIONS, children, outer_scope_parts, self_attr
from .conditions import CAUGHT
from .presence import implied_attrs
from .state import Frame, State, merge


class ExpressionFlow:
    """Needs ``assume``, ``store``, ``call``, ``call_function``, ``branch_truth``, ``resolve_method``,
    ``instance_only`` and ``on_read`` from the Constructor it is mixed into."""

    def expr_children(self, node: ast.AST, st: list[State], fr: Frame) -> list[State]:
        for child in children(node):
            if isinstance(child, ast.expr):
                st = self.expr(child, st, fr)
            elif isinstance(child, (ast.comprehension, ast.keyword)):
                st = self.expr_children(child, st, fr)
        return st

    def expr(self, e: ast.expr, st: list[State], fr: Frame) -> list[State]:
        if not st:
            return st
        if isinstance(e, (ast.Lambda,)):
            return st  # body runs later, if ever: checked as a post-construction read
        if isinstance(e, ast.GeneratorExp):
            return self.expr(e.generators[0].iter, st, fr)  # only the first iterable runs now
        if isinstance(e, COMPREHENSIONS):
            outer = outer_scope_parts(e, fr.selfname)
            if outer is not None:  # a loop target rebinds the instance's name: later parts are not self
                for part in outer:
                    st = self.expr(part, st, fr)
                return st
        if isinstance(e, ast.Attribute):
            a = self_attr(e, fr.selfname)
            if a is not None and isinstance(e.ctx, ast.Load):
                self.read(a, e, fr, st)
                if self.instance_only is not None and not fr.guarded and a not in fr.known and \
                        self.instance_only(a):
                    # the read raises on a path that has not stored it: construction goes on only
                    # where it did (fastNLP's sampler reads what its try body stored, after the handler)
                    st = [x for x in st if a in x.assigned or not any(c.key == CAUGHT for c in x.conds)] or st
                target = self.resolve_method(a, None)
                if target is not None and target[2] == "property":
                    # a property read during construction runs its getter now
                    return self.call_function(target[0], target[1], st, fr.depth + 1, fr.guarded)
                return st
            return self.expr(e.value, st, fr)
        if isinstance(e, ast.Call):
            return self.call(e, st, fr)
        if isinstance(e, ast.BoolOp):
            # later operands run only when earlier ones are truthy (and) / falsy (or): they are
            # evaluated on the states that survive that fact; the expression as a whole can end
            # after any operand, so what it assigns (a walrus, a helper call) joins all of them
            pol = isinstance(e.op, ast.And)
            facts = fr
            cur, ends, added = st, [], set()
            for v in e.values:
                cur = self.expr(v, cur, facts)
                ends += cur
                before = {c for x in cur for c in x.conds}
                cur = self.assume(v, pol, cur, fr)
                added |= {c for x in cur for c in x.conds} - before
                facts = replace(fr, known=facts.known | frozenset(implied_attrs(v, pol, fr.selfname)))
            # afterwards no operand's truth is known: drop exactly the facts this expression assumed
            return merge([State(x.assigned, x.conds - added) for x in ends])
        if isinstance(e, ast.IfExp):
            st = self.expr(e.test, st, fr)
            t = self.branch_truth(e.test, st, fr)  # `[] if clear else list(self.x)` with clear=True bound
            a = self.expr(e.body, self.assume(e.test, True, st, fr),
                          replace(fr, known=fr.known | frozenset(implied_attrs(e.test, True, fr.selfname)))) \
                if t is not False else []
            b = self.expr(e.orelse, self.assume(e.test, False, st, fr),
                          replace(fr, known=fr.known | frozenset(implied_attrs(e.test, False, fr.selfname)))) \
                if t is not True else []
            return merge(a + b)
        if isinstance(e, ast.NamedExpr):
            st = self.expr(e.value, st, fr)
            return self.store(e.target, st, fr)
        return self.expr_children(e, st, fr)

    def read(self, attr: str, node: ast.Attribute, fr: Frame, st: list[State]) -> None:
        if fr.guarded or attr in fr.known:
            return
        self.on_read(attr, node, fr, st)
