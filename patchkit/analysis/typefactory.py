"""Class factories that build a subclass of the class they are handed with ``type()`` and then set
class attributes on it: motor 3.7's ``create_class_with_framework(cls, framework, module)`` runs
``new_class = type(name, (cls,), {})`` then ``new_class._framework = framework``, and is called as
``create_class_with_framework(AgnosticCursor, ...)`` all over the package. The instances are built
from the subclass, so what the factory stores on it is a class attribute of every instance.

:func:`factory_subclasses` reads one file's functions; the classes handed to a factory's base
parameter are found by :func:`classes_passed`, over the tree's texts (the files that name the
factory) and parsed trees, both from the tree index (treeclasses.py)."""
from __future__ import annotations

import ast
import re
from typing import Callable, Iterator, Optional

from .astutil import dotted


def _is_type3(v: ast.expr) -> bool:
    return isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "type" and len(v.args) == 3


def _stored_on(fn: ast.AST, local: str) -> set[str]:
    """Attributes ``fn`` stores on the local ``local`` in statements of its own body, not under a
    branch (``local.x = ...``, ``setattr(local, "x", ...)``)."""
    out = set()
    for n in (x for st in fn.body if not isinstance(st, (ast.If, ast.For, ast.While, ast.Try, ast.With))
              for x in ast.walk(st)):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) \
                and n.value.id == local:
            out.add(n.attr)
        elif isinstance(n, ast.Call) and dotted(n.func) == "setattr" and len(n.args) == 3 and \
                isinstance(n.args[0], ast.Name) and n.args[0].id == local and \
                isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.add(n.args[1].value)
    return out


def factory_subclasses(tree: ast.Module, passed: Callable[[str, int, str], set]) -> Iterator[tuple[str, str, int]]:
    """(base short name, attribute, line) for each ``local = type(name, (p, ...), {...})`` in a
    function of ``tree`` whose base ``p`` is one of its parameters, for each attribute the
    function then stores on ``local`` or puts in the literal dict, and each class some call hands
    that parameter (``passed(function name, position, parameter)``)."""
    for fn, method in _functions(tree.body, False):
        if method:
            continue  # a method's callers are not found by name alone
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and _is_type3(n.value) and isinstance(n.value.args[1], ast.Tuple)):
                continue
            local = n.targets[0].id
            attrs = _stored_on(fn, local)
            d = n.value.args[2]
            if isinstance(d, ast.Dict):
                attrs |= {k.value for k in d.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if not attrs:
                continue
            for e in n.value.args[1].elts:
                if isinstance(e, ast.Name) and e.id in params:
                    pos = params.index(e.id)
                    if method:
                        pos -= 1  # called as a method: the receiver is not an argument
                    for name in passed(fn.name, pos, e.id):
                        for a in attrs:
                            yield name, a, n.lineno


def _functions(body: list, in_class: bool) -> Iterator[tuple[ast.AST, bool]]:
    """Every function under ``body``, with whether it is a method taking its receiver first."""
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            static = any((dotted(d) or "").endswith("staticmethod") for d in st.decorator_list)
            yield st, in_class and not static
            yield from _functions(st.body, False)
        elif isinstance(st, ast.ClassDef):
            yield from _functions(st.body, True)
        elif isinstance(st, (ast.If, ast.Try, ast.With)):
            yield from _functions(st.body + getattr(st, "orelse", []) + getattr(st, "finalbody", [])
                                  + [s for h in getattr(st, "handlers", []) for s in h.body], in_class)


def classes_passed(texts: dict[str, str], parsed: Callable[[str], Optional[ast.Module]],
                   fname: str, pos: int, param: str, depth: int = 2, home: Optional[str] = None) -> set[str]:
    """Short names of the classes (CamelCase names) handed as argument ``pos`` or keyword
    ``param`` to a call of ``fname`` anywhere in the tree; through a wrapper that forwards its own
    parameter (motor's ``create_asyncio_class(cls)``), the classes handed to the wrapper."""
    pat = re.compile(rf"\b{re.escape(fname)}\s*\(")
    out: set[str] = set()
    for rel, text in texts.items():
        if fname not in text or not pat.search(text):
            continue
        if home is not None and rel != home and not _imports(text, home, fname):
            continue  # another function of that name (engines.create_class, not frameworks.create_class)
        tree = parsed(rel)
        if tree is None:
            continue
        owners = {id(c): (fn, method) for fn, method in _functions(tree.body, False) for c in ast.walk(fn)
                  if isinstance(c, ast.Call)}
        for c in ast.walk(tree):
            if not (isinstance(c, ast.Call) and (dotted(c.func) or "").split(".")[-1] == fname):
                continue
            starred = any(isinstance(a, ast.Starred) for a in c.args[:pos + 1])
            got = [c.args[pos]] if 0 <= pos < len(c.args) and not starred else []
            got += [k.value for k in c.keywords if k.arg == param]
            for g in got:
                name = (dotted(g) or "").split(".")[-1]
                if name[:1].isupper():
                    out.add(name)
                elif isinstance(g, ast.Name) and depth > 1 and id(c) in owners:
                    fn, method = owners[id(c)]
                    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
                    if g.id in params and fn.name != fname:
                        out |= classes_passed(texts, parsed, fn.name, params.index(g.id) - method, g.id, depth - 1, rel)
    return out


def _imports(text: str, home: str, fname: str) -> bool:
    """``text`` imports ``fname`` from the module of the file ``home`` (or calls ``<module>.fname``)."""
    mod = home[:-3].replace("/", ".") if home.endswith(".py") else home
    last = mod.split(".")[-1] if not mod.endswith("__init__") else mod.split(".")[-2] if "." in mod else mod
    return bool(re.search(rf"from\s+[\w.]*\b{re.escape(last)}\s+import\s[^\n]*\b{re.escape(fname)}\b", text)
                or re.search(rf"\b{re.escape(last)}\.{re.escape(fname)}\s*\(", text))
