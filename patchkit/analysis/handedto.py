"""Call-site evidence for an injection: a function stores ``p.x = ...`` on a parameter ``p`` with no
annotation, and some call in the tree hands it an instance built as the class. ursina's
``Entity.add_script(self, class_instance)`` sets ``class_instance.entity = self``; the tree calls
``e.add_script(SmoothFollow(target=player))``, so ``SmoothFollow``'s reads of ``self.entity`` are set
up by its owner after construction (an ordering question, not a hole).

What counts as handing an instance of ``C``: the argument is ``C(...)`` or ``copy(C(...))``, or a
name that the calling function (or the module, for top-level code) binds to ``C(...)``. The callee is
matched by name: ``obj.name(...)`` for a method (the first argument fills the parameter after the
instance), ``name(...)`` for a function; ``name(p=C(...))`` by keyword. A call whose callee has
another definition is still counted: the receiver of ``obj.add_script`` has no static type, and
a same-named method elsewhere that never stores ``x`` on that parameter changes nothing here."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import dotted

_COPIES = frozenset({"copy", "deepcopy", "copy.copy", "copy.deepcopy"})


def _class_of(arg: ast.AST, local_ctors: dict[str, str]) -> Optional[str]:
    """The short class name an argument is built as, or None."""
    if isinstance(arg, ast.Call):
        f = dotted(arg.func) or ""
        if f in _COPIES and len(arg.args) == 1:
            return _class_of(arg.args[0], local_ctors)
        short = f.split(".")[-1]
        return short if short[:1].isupper() else None
    if isinstance(arg, ast.Name):
        return local_ctors.get(arg.id)
    return None


def _class_like(node: ast.AST) -> bool:
    """A CamelCase name (``Entity``, not ``e`` or ``CONFIG``): a class, as the receiver of a call."""
    return isinstance(node, ast.Name) and node.id[:1].isupper() and not node.id.isupper()


def _ctors_in(scope: ast.AST) -> dict[str, str]:
    """``name = C(...)`` bindings of a scope's own statements, not of the functions nested in it
    (a name bound twice to different classes is dropped)."""
    out: dict[str, Optional[str]] = {}
    for n in _own(scope):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            c = _class_of(n.value, {})
            name = n.targets[0].id
            out[name] = c if name not in out or out[name] == c else None
    return {k: v for k, v in out.items() if v}


def _own(scope: ast.AST):
    """The nodes of a module's or a function's body, not descending into nested functions."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


class HandedIndex:
    """Per tree: for a callee name, the classes each call of it hands at each argument slot."""

    def __init__(self, index):
        self.index = index  # a TreeClasses (texts + parsed trees)
        self._memo: dict[str, list[tuple[bool, list, dict]]] = {}

    def calls(self, name: str) -> list[tuple[bool, list, dict]]:
        """[(called as a method, [class or None per positional argument], {keyword: class})]."""
        got = self._memo.get(name)
        if got is not None:
            return got
        got = self._memo[name] = []
        pat = re.compile(r"\b%s\s*\(" % re.escape(name))
        for rel, text in self.index.texts().items():
            if name not in text or not pat.search(text):
                continue
            tree = self.index.parsed(rel)
            if tree is None:
                continue
            for scope, ctors in _scopes(tree):
                for n in _own(scope):
                    if not isinstance(n, ast.Call):
                        continue
                    f = n.func
                    if isinstance(f, ast.Attribute) and f.attr == name:
                        # ``Entity.add_script(script, e)``: through the class, the instance comes first
                        method = not _class_like(f.value)
                    elif isinstance(f, ast.Name) and f.id == name:
                        method = False
                    else:
                        continue
                    if any(isinstance(a, ast.Starred) for a in n.args):
                        continue
                    got.append((method, [_class_of(a, ctors) for a in n.args],
                                {k.arg: _class_of(k.value, ctors) for k in n.keywords if k.arg}))
        return got

    def handed(self, fn: ast.AST, is_method: bool, param: str, names: set[str]) -> bool:
        """A call somewhere in the tree hands an instance of one of ``names`` to ``fn``'s
        parameter ``param``."""
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        kwonly = {a.arg for a in fn.args.kwonlyargs}
        if param not in params and param not in kwonly:
            return False
        for method, pos, kws in self.calls(fn.name):
            if kws.get(param) in names:
                return True
            if param in params:
                i = params.index(param) - (1 if is_method and method else 0)
                if 0 <= i < len(pos) and pos[i] in names:
                    return True
        return False


def _scopes(tree: ast.Module):
    """(scope, the ``name = C(...)`` names its calls see) for the module's own code and each
    function (its locals over the module's globals)."""
    top = _ctors_in(tree)
    yield tree, top
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield n, {**top, **_ctors_in(n)}
