"""The instance's own class inside a method: ``type(self)``, ``self.__class__``, or a local bound
only to one of them (``cls = type(self)``). A store on it (``cls._registry = {}``) gives the
instance a class attribute, and ``"x" in cls.__dict__`` being true says ``x`` is there (the red
team's fp268: a registry created lazily on the class by the first ``__init__``)."""
from __future__ import annotations

import ast

from .astutil import memo_on


def _is_class_expr(node: ast.AST, selfname: str) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" \
            and len(node.args) == 1 and not node.keywords:
        return isinstance(node.args[0], ast.Name) and node.args[0].id == selfname
    return isinstance(node, ast.Attribute) and node.attr == "__class__" and isinstance(node.value, ast.Name) \
        and node.value.id == selfname


def class_aliases(fn: ast.AST, selfname: str) -> frozenset:
    """Locals of ``fn`` bound to the instance's class and to nothing else."""
    def compute() -> frozenset:
        good, simple = set(), set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and _is_class_expr(n.value, selfname):
                good.add(n.targets[0].id)
                simple.add(id(n.targets[0]))
        # any other binding of the name (a parameter, a tuple target, a loop or ``with ... as``)
        bad = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
               and id(n) not in simple}
        a = fn.args
        bad |= {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None}
        return frozenset(good - bad)
    return memo_on(fn, f"_pk_class_aliases_{selfname}", compute)


def is_self_class(node: ast.AST, selfname: str, fn: ast.AST) -> bool:
    """``node`` is the instance's class: ``type(self)``, ``self.__class__`` or such a local."""
    if _is_class_expr(node, selfname):
        return True
    return isinstance(node, ast.Name) and fn is not None and node.id in class_aliases(fn, selfname)


def in_class_dict(test: ast.expr, pol: bool, selfname: str, fn: ast.AST) -> set[str]:
    """``x`` when ``"x" in type(self).__dict__`` (or its alias) is ``pol``-true, or
    ``"x" not in ...`` is ``pol``-false."""
    node, p = test, pol
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node, p = node.operand, not p
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))):
        return set()
    if isinstance(node.ops[0], ast.NotIn):
        p = not p
    d = node.comparators[0]
    if p and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) and \
            isinstance(d, ast.Attribute) and d.attr == "__dict__" and is_self_class(d.value, selfname, fn):
        return {node.left.value}
    return set()
