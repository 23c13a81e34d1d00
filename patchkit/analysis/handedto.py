"""Call-site evidence for an injection: a function stores ``p.x = ...`` on a parameter ``p`` with no
annotation, and some call in the tree hands it an instance built as the class. ursina's
``Entity.add_script(self, class_instance)`` sets ``class_instance.entity = self``; the tree calls
``e.add_script(SmoothFollow(target=player))``, so ``SmoothFollow``'s reads of ``self.entity`` are set
up by its owner after construction (an ordering question, not a hole).

What counts as handing an instance of ``C``: the argument is ``C(...)`` (``m.C(...)``; a lowercase
class name too) or ``copy(C(...))``, or a
name that the calling function (or the module, for top-level code) binds to ``C(...)``. The callee is
matched by name: ``obj.name(...)`` for a method (the first argument fills the parameter after the
instance), ``name(...)`` for a function; ``name(p=C(...))`` by keyword. A call whose callee has
another definition is still counted: the receiver of ``obj.add_script`` has no static type, and
a same-named method elsewhere that never stores ``x`` on that parameter changes nothing here.

Kept narrow, since a match turns an error into a warning: names of the builtin containers' methods
and dunders are never matched (``seen.add(C())`` is a set's); a module-level function only by
``name(...)`` in a file that defines or imports the name; a nested function never; only the reading
class itself counts (an instance of its base handed over says nothing of the subclass); a name
rebound in the calling scope (a parameter, a loop or ``with`` target) is not a constructed local.
A staticmethod's first parameter is an argument, a classmethod's is the class."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import FUNCTION_NODES, dotted, own_nodes
from .localconsts import name_stores

_COPIES = frozenset({"copy", "deepcopy", "copy.copy", "copy.deepcopy"})


def _class_of(arg: ast.AST, local_ctors: dict[str, str]) -> Optional[str]:
    """The short class name an argument is built as, or None."""
    if isinstance(arg, ast.Call):
        f = dotted(arg.func) or ""
        if f in _COPIES and len(arg.args) == 1:
            return _class_of(arg.args[0], local_ctors)
        # any case: it only ever matches the reading class's own name (deeptools' lowercase
        # ``heatmapper.heatmapper()`` handed to ``plotMatrix(hm, ...)``, which sets ``hm.startLabel``)
        return f.split(".")[-1] or None
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
    for n in own_nodes(scope, FUNCTION_NODES):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            c = _class_of(n.value, {})
            name = n.targets[0].id
            out[name] = c if name not in out or out[name] == c else None
    rebound = _rebound(scope)
    return {k: v for k, v in out.items() if v and k not in rebound}


def _rebound(scope: ast.AST) -> set[str]:
    """Names a scope binds other than by a plain assignment: its parameters, loop, ``with``,
    walrus and comprehension targets."""
    out: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = scope.args
        out |= {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None}
    for n in own_nodes(scope, FUNCTION_NODES):
        targets = [n.target] if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)) else \
            [i.optional_vars for i in n.items if i.optional_vars is not None] if isinstance(n, (ast.With, ast.AsyncWith)) \
            else []
        out |= {x for t in targets for x in _names_bound(t)}
    return out


#: method names of the builtin containers (and dunders, below): ``seen.add(C())`` is a set's, not a tree method's
_COMMON = frozenset(m for t in (list, set, dict, str, bytes, tuple, frozenset) for m in dir(t))


class HandedIndex:
    """Per tree: for a callee name, the classes each call of it hands at each argument slot."""

    def __init__(self, index):
        self.index = index  # a TreeClasses (texts + parsed trees)
        self._memo: dict[str, list[tuple[str, list, dict]]] = {}
        self._handed: dict[tuple, bool] = {}

    def calls(self, name: str) -> list[tuple[str, list, dict]]:
        """[(how it is called: "bound" ``obj.name(...)``, "class" ``Cls.name(...)``, "bare" ``name(...)``
        in a file that defines or imports ``name``; [class or None per positional argument],
        {keyword: class})]."""
        got = self._memo.get(name)
        if got is not None:
            return got
        got = self._memo[name] = []
        if name in _COMMON or name.startswith("__"):
            return got
        pat = re.compile(r"\b%s\s*\(" % re.escape(name))
        known = re.compile(r"^\s*(?:async\s+)?def\s+%s\b|^\s*(?:from\s+\S+\s+)?import\b[^\n]*\b%s\b"
                           % (re.escape(name), re.escape(name)), re.M)
        for rel, text in self.index.naming(name):
            if not pat.search(text):
                continue
            bare_ok = known.search(text) is not None
            tree = self.index.parsed(rel)
            if tree is None:
                continue
            for scope, ctors in _scopes(tree):
                for n in own_nodes(scope, FUNCTION_NODES):
                    if not isinstance(n, ast.Call):
                        continue
                    f = n.func
                    if isinstance(f, ast.Attribute) and f.attr == name:
                        # ``Entity.add_script(script, e)``: through the class, the instance comes first
                        how = "class" if _class_like(f.value) else "bound"
                    elif isinstance(f, ast.Name) and f.id == name and bare_ok:
                        how = "bare"
                    else:
                        continue
                    if any(isinstance(a, ast.Starred) for a in n.args):
                        continue
                    got.append((how, [_class_of(a, ctors) for a in n.args],
                                {k.arg: _class_of(k.value, ctors) for k in n.keywords if k.arg}))
        return got

    def handed_param(self, recv, fn, cls, outer, exact: frozenset) -> bool:
        """``recv``, the receiver of a store in ``fn`` (of class ``cls``, nested in ``outer``), is a
        parameter (not a method's own instance, never rebound in ``fn``) that some call in the tree
        hands an instance of the class itself (``exact``: its short name). A nested function is
        reached only through its enclosing one: never."""
        if not exact or not isinstance(recv, ast.Name) or fn.name == "<module>" or outer is not None:
            return False
        decorators = {dotted(d) for d in fn.decorator_list}
        kind = "function" if cls is None else "staticmethod" if "staticmethod" in decorators else \
            "classmethod" if "classmethod" in decorators else "method"
        first = (fn.args.posonlyargs + fn.args.args)[:1]
        if kind in ("method", "classmethod") and first and recv.id == first[0].arg:
            return False  # the instance (or the class) itself
        if recv.id in name_stores(fn)[0]:
            return False  # ``s = Wrapper(s); s.entity = self``: no longer what the caller handed
        return self.handed(fn, kind, recv.id, exact)

    def handed(self, fn: ast.AST, kind: str, param: str, names: frozenset) -> bool:
        """A call somewhere in the tree hands an instance of one of ``names`` to ``fn``'s
        parameter ``param``. ``kind``: "function" (module level), "method", "staticmethod",
        "classmethod"."""
        key = (id(fn), param, names)
        if key in self._handed:
            return self._handed[key]
        self._handed[key] = False
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        kwonly = {a.arg for a in fn.args.kwonlyargs}
        if param not in params and param not in kwonly:
            return False
        for how, pos, kws in self.calls(fn.name):
            if (how == "bare") != (kind == "function"):
                continue  # a function is called by its name, a method through an object or class
            if kws.get(param) in names:
                self._handed[key] = True
                break
            if param in params:
                # the implicit first parameter: always a classmethod's, a method's when called bound
                skip = 1 if kind == "classmethod" or (kind == "method" and how == "bound") else 0
                i = params.index(param) - skip
                if 0 <= i < len(pos) and pos[i] in names:
                    self._handed[key] = True
                    break
        return self._handed[key]


def _scopes(tree: ast.Module):
    """(scope, the ``name = C(...)`` names its calls see) for the module's own code and each
    function (its locals over the module's globals)."""
    top = _ctors_in(tree)
    yield tree, top
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield n, {**top, **_ctors_in(n)}


def _names_bound(target) -> list[str]:
    """The names a target binds: ``x``, ``(a, *b)``; not the base of ``x.attr = ...`` or ``x[i] = ...``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _names_bound(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names_bound(e)]
    return []
