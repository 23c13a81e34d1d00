"""Helpers that store computed names on an object they are handed. obspy's SEED blockettes get every
field this way: ``Blockette.parse_seed`` runs ``field.parse_seed(self, data)`` for each field of the
class's ``fields`` list, and ``Field.parse_seed(self, blockette, data)`` runs ``setattr(blockette,
self.attribute_name, value)``. A class whose method hands ``self`` to such a helper stores names the
analyzer cannot list, like one that calls ``setattr(self, name, v)`` itself: it is dynamic through
that method. The helper is looked up by name in the class's own module and in the tree modules it
imports from (the receiver, ``field``, has no static type)."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import dotted, fast_walk, memo_on, own_nodes
from .dynamic import mark_dynamic
from .model import ClassInfo, ModuleInfo


def _injects(fn: ast.FunctionDef, method: bool, consts: frozenset = frozenset()) -> bool:
    """``fn`` stores computed names on one of its parameters (not a method's own first parameter):
    ``setattr(p, <non-literal>, v)`` on it or its class, or an item store into its ``__dict__``."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    if method:
        params = params[1:]
    if not params:
        return False
    for n in fast_walk(fn):
        if isinstance(n, ast.Call) and dotted(n.func) in ("setattr", "object.__setattr__") and len(n.args) >= 2 \
                and _receiver(n.args[0]) in params and not _literal(n.args[1], consts):
            return True
    # the function's own code (a nested class's ``self.__dict__`` is its own instance's): locals
    # bound to a parameter's namespace (``d = obj.__dict__``, fontTools' sstruct.unpack), then stores
    own = list(own_nodes(fn))
    spaces = {t.id for n in own if isinstance(n, ast.Assign) and _namespace_of(n.value) in params
              for t in n.targets if isinstance(t, ast.Name)}
    return any(_namespace_store(n, params, spaces, consts) for n in own)


def _literal(key: ast.expr, consts: frozenset) -> bool:
    """A name known before the call: a string literal, or a module constant bound to one (the
    patch's own ``setattr(worker, STATE_ATTR, ctl)`` with ``STATE_ATTR = "_patchkit_spec_disable"``)."""
    return isinstance(key, ast.Constant) and isinstance(key.value, str) or \
        isinstance(key, ast.Name) and key.id in consts


def _namespace_of(node: ast.expr) -> Optional[str]:
    """The name whose instance namespace ``node`` is: ``p.__dict__`` or ``vars(p)``."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__" and isinstance(node.value, ast.Name):
        return node.value.id
    if isinstance(node, ast.Call) and dotted(node.func) == "vars" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Name):
        return node.args[0].id
    return None


def _namespace_store(n: ast.AST, params: list, spaces: set, consts: frozenset = frozenset()) -> bool:
    """A computed store into a parameter's namespace: ``d[name] = v`` with ``d`` one of ``spaces``
    or ``p.__dict__[name] = v``, or ``.update(...)`` on either (fontTools' ``sstruct.unpack(fmt,
    data, obj)`` runs ``d = obj.__dict__`` and then ``d[name] = value`` for each field of the format)."""
    def is_space(v: ast.expr) -> bool:
        return isinstance(v, ast.Name) and v.id in spaces or _namespace_of(v) in params
    if isinstance(n, ast.Assign):
        return any(isinstance(t, ast.Subscript) and is_space(t.value) and not _literal(t.slice, consts)
                   for t in n.targets)
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("update", "setdefault") \
        and is_space(n.func.value)


def _receiver(node: ast.expr) -> Optional[str]:
    """The parameter a setattr's object is, or whose class it is: ``p``, ``p.__class__``, ``type(p)``
    (xlrd's ``initialise_book(book)`` installs its ``handle_*`` functions with
    ``setattr(book.__class__, method.__name__, method)``)."""
    if isinstance(node, ast.Attribute) and node.attr == "__class__":
        node = node.value
    elif isinstance(node, ast.Call) and dotted(node.func) == "type" and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) else None


def injecting_names(mod: ModuleInfo) -> frozenset:
    """Names of the functions and methods of ``mod`` that store computed names on a parameter."""
    def compute() -> frozenset:
        found: set = set()
        if "setattr" not in mod.source and "__dict__" not in mod.source and "vars(" not in mod.source:
            return frozenset()
        consts = frozenset(t.id for st in mod.tree.body if isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant)
                           and isinstance(st.value.value, str) for t in st.targets if isinstance(t, ast.Name))
        for node in mod.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _injects(node, False, consts):
                found.add(node.name)
            elif isinstance(node, ast.ClassDef):
                for fn in node.body:
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        static = any(dotted(d) == "staticmethod" for d in fn.decorator_list)
                        if _injects(fn, not static, consts):
                            found.add(fn.name)
        return frozenset(found)
    return memo_on(mod, "_pk_injecting", compute)


def _injected_by_import(project, mod: ModuleInfo, callee: str) -> bool:
    """``callee`` is an injecting function (:func:`injecting_names`) of ``mod`` or of a module of
    the tree ``mod`` imports names from. Only a module whose text has the word is parsed: the
    names are those of its own ``def`` statements."""
    if callee in injecting_names(mod):
        return True
    seen = {mod.name}
    for full in mod.imports.values():
        name = full.rsplit(".", 1)[0] if "." in full else full
        if name in seen:
            continue
        seen.add(name)
        text = project.module_text(name)
        if text is None or callee not in text:
            continue
        m = project.module(name, external=False)
        if m is not None and not m.external and callee in injecting_names(m):
            return True
    return False


#: ``f(self, ...)``, ``f(x, self)``, ``f(obj=self)``: ``self`` as an argument (a cheap first look)
_HANDED = re.compile(r"[(,=]\s*self\s*[,)]")


def _hands_self(call: ast.Call, selfname: str) -> bool:
    return any(isinstance(a, ast.Name) and a.id == selfname for a in call.args) or \
        any(isinstance(k.value, ast.Name) and k.value.id == selfname for k in call.keywords)


def handoffs(project, ci: ClassInfo) -> list[tuple[str, int, str]]:
    """(method, line, callee) for each call in a method of ``ci`` that hands ``self`` to a helper
    storing computed names on it (``callee`` as written); computed once per class."""
    def compute() -> list:
        out: list = []
        memo: dict[str, bool] = {}
        lines = ci.module.lines[ci.node.lineno - 1:getattr(ci.node, "end_lineno", None) or len(ci.module.lines)]
        if not _HANDED.search("\n".join(lines)):
            return out  # no call in the class hands over a first parameter named self

        for mname, fn in ci.methods.items():
            if not fn.args.args:
                continue
            selfname = fn.args.args[0].arg
            for n in fast_walk(fn):
                if not (isinstance(n, ast.Call) and _hands_self(n, selfname)):
                    continue
                callee = n.func.attr if isinstance(n.func, ast.Attribute) else \
                    n.func.id if isinstance(n.func, ast.Name) else None
                if callee is None or callee in ("setattr", "getattr", "hasattr", "isinstance", "super"):
                    continue
                qual = n.func.value.id if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) else None
                target = project.module(ci.module.imports[qual], external=False) \
                    if qual is not None and qual in ci.module.imports else None
                if target is not None and not target.external:  # ``formatting.initialise_book(self)``: that module's
                    if callee in injecting_names(target):
                        out.append((mname, n.lineno, dotted(n.func) or callee))
                    continue
                if callee not in memo:
                    memo[callee] = _injected_by_import(project, ci.module, callee)
                if memo[callee]:
                    out.append((mname, n.lineno, dotted(n.func) or callee))
        return out
    return memo_on(ci, "_pk_handoffs", compute)


def mark_handoffs(project, f) -> bool:
    """Mark the classes of an MRO (``f``: its ClassFacts) dynamic through the methods that hand
    ``self`` to such a helper; whether the class is dynamic now. The checker asks only for a class
    with findings: the lookup reads the modules a class imports from."""
    for c in f.classes:
        if c.module.external:
            continue
        for mname, line, callee in handoffs(project, c):
            mark_dynamic(c, mname, f"hands self to {callee} in {mname} at line {line}, which "
                                   f"stores computed names on it (setattr, or its __dict__)")
            if not f.dynamic:
                f.dynamic = f"{c.qualname} {c.dynamic}"
    return bool(f.dynamic)
