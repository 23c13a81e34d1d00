"""Methods a class gets from functions decorated with one of its classmethods (set BP, session 48).

visidata's ``Extensible.api`` is a classmethod that installs the function it decorates on the
class: ``setattr(cls, func.__name__, func)``. ``@VisiData.api def drawRightStatus(vd, ...)`` in
``statusbar.py`` gives ``VisiData`` a ``drawRightStatus`` method that no class body holds. Such a
classmethod is an *installer*: its own code (not a nested function), as a statement of its body
(not under a branch), runs that ``setattr`` on its ``cls`` parameter, which it never rebinds.

The functions are the tree's module-level ones (under ``if``/``try``/``with`` blocks too, but not
under ``if TYPE_CHECKING:``, ``if False:`` or ``if __name__ == "__main__":``) whose innermost
decorator is ``@Owner.<installer>``, where ``Owner`` resolves through that module's imports to the
judged class or a class of its MRO, and ``Owner.<installer>`` resolves to an installer (not to an
override, method or assignment, that only registers). Files are parsed, never scanned by pattern.

Like a store on the class from another module (``class_store``), this is set-up that code
elsewhere does when it runs (the module may never be imported, or be imported after the read): an
error on such a name becomes a warning naming the decorated function."""
from __future__ import annotations

import ast

from .astutil import dotted, is_type_checking, memo_on, module_level, own_nodes
from .demote import demote_named, open_errors


def _installs(fn) -> bool:
    args = fn.args.args
    if len(args) < 2:
        return False
    me, params = args[0].arg, {a.arg for a in args[1:]}
    if any(isinstance(n, ast.Name) and n.id == me and isinstance(n.ctx, ast.Store) for n in own_nodes(fn)):
        return False  # ``cls = Registry`` first: not the class it is called on
    for st in fn.body:
        c = st.value if isinstance(st, ast.Expr) else None
        if isinstance(c, ast.Call) and dotted(c.func) == "setattr" and len(c.args) == 3 and \
                isinstance(c.args[0], ast.Name) and c.args[0].id == me and \
                isinstance(c.args[1], ast.Attribute) and c.args[1].attr == "__name__" and \
                isinstance(c.args[1].value, ast.Name) and c.args[1].value.id in params:
            return True
    return False


def installers(c) -> frozenset:
    """Names of the classmethods of class ``c`` that install the function handed to them (see the
    module's doc)."""
    if "setattr(" not in (getattr(c.module, "source", "") or ""):
        return frozenset()
    return memo_on(c, "_pk_installers", lambda: frozenset(
        name for name, fn in c.methods.items() if c.method_kind.get(name) == "class" and _installs(fn)))


def _never_runs(test) -> bool:
    """``TYPE_CHECKING``, ``False``, ``__name__ == "__main__"``: a block an import does not run."""
    if is_type_checking(test) or (isinstance(test, ast.Constant) and not test.value):
        return True
    return isinstance(test, ast.Compare) and dotted(test.left) == "__name__" and len(test.comparators) == 1 and \
        isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__"


def _decorated(project, idx, method: str) -> list[tuple[str, int, object, str]]:
    """(file, line, owner class, function name) of each module-level function of the tree of the
    index ``idx`` whose innermost decorator is ``@<owner>.<method>``, the owner resolved through its
    module's imports (once per index and method name)."""
    from .model import ClassInfo
    from .project import module_name_for
    memo = idx.__dict__.setdefault("_pk_decorated", {})
    got = memo.get(method)
    if got is None:
        got = memo[method] = []
        needle = "." + method
        for rel, text in idx.naming(method):
            if "@" not in text or needle not in text:
                continue
            tree = idx.parsed(rel)
            mod = None
            for fn in module_level(tree.body if tree is not None else [], skip=_never_runs):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                d = fn.decorator_list[-1] if fn.decorator_list else None
                if not (isinstance(d, ast.Attribute) and d.attr == method and dotted(d.value)):
                    continue
                mod = mod or project.module(module_name_for(getattr(idx, "prefix", "") + rel), external=False)
                k = project.resolve_class(mod, dotted(d.value)) if mod is not None else None
                if isinstance(k, ClassInfo):
                    got.append((rel, fn.lineno, k, fn.name))
    return got


def _installs_on(model, owner, method: str, classes, ci) -> bool:
    """``owner.<method>`` resolves, along ``owner``'s MRO, to an installer: the first class that
    names it in its body defines it as one."""
    mro = classes if owner.key == ci.key else model.facts(owner).classes
    for x in mro:
        if method in x.methods:
            return method in installers(x)
        if method in x.class_names:
            return False  # ``api = classmethod(_register)``: something else
    return False


def installed(model, ci, classes) -> dict[str, str]:
    """name -> ``file:line`` of the decorated function that installs it on class ``ci``, whose MRO
    (tree classes) is ``classes``."""
    inst = set().union(*(installers(c) for c in classes if not c.module.external))
    if not inst:
        return {}
    from .injection import _index_for
    idx = _index_for(model.project, ci)
    keys = {c.key for c in classes}
    out: dict[str, str] = {}
    for m in sorted(inst):
        for rel, line, owner, name in _decorated(model.project, idx, m):
            if owner.key in keys and name not in out and _installs_on(model, owner, m, classes, ci):
                out[name] = f"{rel}:{line}"
    return out


def demote_installed(model, ci, findings: list) -> list:
    """Errors on names a decorated function installs on the class become warnings naming it."""
    todo = open_errors(findings)
    if not todo:
        return findings
    f = model.facts(ci)
    got = memo_on(ci, "_pk_installed", lambda: installed(model, ci, f.classes) or {"": ""})
    sources = [({name}, f"{where} installs it on the class with a decorator (a method once that module has run)")
               for name, where in got.items() if name]
    return demote_named(findings, todo, sources) if sources else findings
