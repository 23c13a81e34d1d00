"""``setattr(cls, <computed name>, ...)`` inside a class's own ``__new__`` or classmethods: the names
it can give the class (model.py's module-level ``setattr(Cls, ...)`` forms live beside the class index)."""
from __future__ import annotations

import ast
import re

from .astutil import dotted


def computed_cls_setattrs(mod) -> None:
    """``setattr(cls, <computed name>, ...)`` in ``__new__`` or in a classmethod the module calls,
    with a name built from a literal part (circus's ``CircusCtl.__new__`` adds a ``do_<command>``
    method per command through ``cls._add_do_cmd``): the class has the names of that pattern. A
    name with no literal part opens nothing (qtile's ``CommandObject.__new__`` installs methods under
    command names; they are not the instance's data)."""
    if "setattr(" not in mod.source:
        return
    for ci in mod.classes.values():
        for name, fn in ci.methods.items():
            if ci.method_kind.get(name) != "class" and name != "__new__" or not fn.args.args:
                continue
            if name != "__new__" and not re.search(r"\.%s\s*\(" % re.escape(name), mod.source):
                continue  # a classmethod nothing here calls opens nothing
            me = fn.args.args[0].arg
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and dotted(node.func) == "setattr" and len(node.args) >= 2 and \
                        isinstance(node.args[0], ast.Name) and node.args[0].id == me and \
                        not isinstance(node.args[1], ast.Constant):
                    pat = _key_pattern(node.args[1], fn)
                    if pat is not None:
                        ci.dyn_patterns.append(pat)


def _key_pattern(key: ast.expr, fn, depth: int = 0):
    """The names a computed key can give when it has a literal part: ``f"do_{x}"``, ``"do_%s" % x``,
    ``"do_" + x``, or a name or attribute ``fn`` assigns one of those to (``inner.__name__ = "do_%s" %
    x``); else None."""
    if isinstance(key, ast.JoinedStr):
        from .model import names_of
        return names_of(key)
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Mod) and isinstance(key.left, ast.Constant) \
            and isinstance(key.left.value, str):
        return re.compile("^" + ".*".join(map(re.escape, re.split(r"%[-#0 +]*\d*(?:\.\d+)?[sdrifx]", key.left.value))) + "$")
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
        parts = [key.left, key.right]
        if any(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in parts):
            return re.compile("^" + "".join(re.escape(p.value) if isinstance(p, ast.Constant) and isinstance(p.value, str)
                                            else ".*" for p in parts) + "$")
    if isinstance(key, (ast.Name, ast.Attribute)) and depth == 0:
        want = _shape(key)
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and any(_shape(t) == want for t in n.targets):
                return _key_pattern(n.value, fn, 1)
    return None


def _shape(node: ast.expr) -> str:
    return re.sub(r"ctx=(?:Load|Store)\(\)", "", ast.dump(node))
