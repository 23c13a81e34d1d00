"""Evidence, at a store ``<receiver>.x = ...`` outside a class, that the receiver is an instance of
that class (or a class made from it): a parameter annotation or default naming it, a local or an
owner attribute constructed as it, a loop over ``.modules()`` for ``nn.Module`` subclasses, the
first parameter of a wrapper made by a decorator of one of its methods, a class-like local a
factory makes from it. ``injection.py`` indexes the stores; this module reads one store."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import dotted
from .ownerbuilt import class_attr_built, factory_built

_MODULE_ITER = {"modules", "children", "named_modules", "named_children"}


def names_in(expr: Optional[ast.AST]) -> set[str]:
    if expr is None:
        return set()
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return set(re.findall(r"[A-Za-z_]\w*", expr.value))
    return {(dotted(n) or "").split(".")[-1] for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute))}


def built_as(value: ast.AST) -> str:
    return (dotted(value.func) or "").split(".")[-1] if isinstance(value, ast.Call) else ""


def built_by_factory(value: ast.AST) -> str:
    """``Cls`` of ``Cls.from_opt(...)``: an alternative constructor by the ``from_`` convention
    (OpenNMT's ``DynamicDatasetIter.from_opt``, ``from_pretrained``, ``from_config``)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr.startswith("from_"):
        return (dotted(value.func.value) or "").split(".")[-1]
    return ""


def module_ctors(tree: ast.Module) -> dict[str, str]:
    """Module-level ``name = Cls(...)`` -> Cls."""
    out = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and built_as(n.value):
            out[n.targets[0].id] = built_as(n.value)
    return out


def is_instance(recv, fn, cls, outer, names, torch_module, decorators, ctors) -> bool:
    args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
    selfname = args[0].arg if args and cls is not None else None
    if isinstance(recv, ast.Name):
        if recv.id == selfname:
            return False  # the class's own assignment: the ordinary rules see it
        defaults = dict(zip([a.arg for a in (fn.args.posonlyargs + fn.args.args)][::-1], fn.args.defaults[::-1]))
        defaults.update({a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None})
        for a in args:
            if a.arg == recv.id:
                if names_in(a.annotation) & names:
                    return True
                d = defaults.get(a.arg)
                if isinstance(d, ast.Name) and ctors.get(d.id) in names:
                    return True
                # a decorator's wrapper: its first parameter is the decorated method's instance
                if outer is not None and a is args[0] and outer.name in decorators:
                    return True
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == recv.id for t in n.targets) \
                    and (built_as(n.value) in names or built_by_factory(n.value) in names):
                return True

            if torch_module and isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and \
                    isinstance(n.iter.func, ast.Attribute) and n.iter.func.attr in _MODULE_ITER and \
                    recv.id in {x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)}:
                return True
        return False
    # self.<owned>.x = ...: the owner built self.<owned> as one of the classes
    if isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == selfname and cls is not None:
        for n in ast.walk(cls):
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Attribute) and t.attr == recv.attr and n.value is not None and \
                            (built_as(n.value) in names or isinstance(n, ast.AnnAssign) and names_in(n.annotation) & names
                             or class_attr_built(cls, n.value, selfname) & names):
                        return True
        return bool(factory_built(cls, recv.attr, ctors) & names) or param_owned(cls, recv.attr, names)
    return False


_COPY_CALLS = frozenset({"copy.copy", "copy.deepcopy", "copy", "deepcopy"})


def set_up_by_own_class(recv, fn, cls, exact, index) -> bool:
    """``recv`` is an instance that a method of the reading class itself (``exact``: its short name;
    the caller checks the store sits in the class's own module; a base's factory builds the base's
    instances, not this class's: flytekit's ``LaunchPlan.create`` and ``ReferenceLaunchPlan``)
    builds or copies and then sets up: :func:`classmethod_built`, :func:`copy_of_self`. ``index``
    (a TreeClasses) tells which classmethods of the tree build their ``cls``."""
    if cls is None or cls.name not in exact or not isinstance(recv, ast.Name):
        return False
    args = fn.args.posonlyargs + fn.args.args
    selfname = args[0].arg if args else None
    return classmethod_built(recv.id, fn, lambda m: builds_cls(index, m)) or copy_of_self(recv.id, fn, selfname)


def builds_cls(index, name: str) -> bool:
    """Some classmethod of the tree named ``name`` calls its own ``cls(...)`` (loky's
    ``get_reusable_executor``): what it returns is (or holds) an instance of the class it is called on."""
    memo = index.__dict__.setdefault("_pk_builds_cls", {})
    if name not in memo:
        memo[name] = False
        pat = re.compile(r"def\s+%s\b" % re.escape(name))
        for rel, text in index.naming(name):
            tree = index.parsed(rel) if pat.search(text) else None
            for n in ast.walk(tree) if tree is not None else ():
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name and n.args.args and \
                        any(isinstance(d, ast.Name) and d.id == "classmethod" for d in n.decorator_list):
                    me = n.args.args[0].arg
                    if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == me for c in ast.walk(n)):
                        memo[name] = True
                        return True
    return memo[name]


def copy_of_self(name: str, fn, selfname) -> bool:
    """In a method, ``name = copy.copy(self)`` (``deepcopy``, ``self.copy()``, ``self.__copy__()``):
    another instance of the class, set up by the method that copies it (rocketry's
    ``TaskCond._set_task``: ``new_self = copy.copy(self); new_self.task = ...; return new_self``)."""
    if not selfname:
        return False
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and n.targets[0].id == name and isinstance(n.value, ast.Call)):
            continue
        f, args = n.value.func, n.value.args
        if (dotted(f) or "") in _COPY_CALLS and len(args) == 1 and isinstance(args[0], ast.Name) and args[0].id == selfname:
            return True
        if isinstance(f, ast.Attribute) and f.attr in ("copy", "__copy__", "__deepcopy__") and \
                isinstance(f.value, ast.Name) and f.value.id == selfname:
            return True
    return False


def classmethod_built(name: str, fn, builds=lambda m: False) -> bool:
    """In a classmethod, ``name`` is bound (alone, or first of a tuple) to ``cls(...)``,
    ``cls.<m>(...)`` or ``super().<m>(...)``: the instance the factory builds and sets up (joblib's
    ``MemmappingExecutor.get_memmapping_executor``: ``_executor, reused =
    super().get_reusable_executor(...)``, then ``_executor._temp_folder_manager = manager``)."""
    if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list):
        return False
    args = fn.args.posonlyargs + fn.args.args
    if not args:
        return False
    me = args[0].arg
    for n in ast.walk(fn):
        if not isinstance(n, ast.Assign) or len(n.targets) != 1 or not isinstance(n.value, ast.Call):
            continue
        t = n.targets[0]
        if isinstance(t, ast.Tuple) and t.elts:
            t = t.elts[0]
        if not (isinstance(t, ast.Name) and t.id == name):
            continue
        f = n.value.func
        if isinstance(f, ast.Name) and f.id == me:
            return True
        # ``cls.make(...)`` / ``super().make(...)``: only a classmethod known to build its ``cls``
        if isinstance(f, ast.Attribute) and (isinstance(f.value, ast.Name) and f.value.id == me or
                                             isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name)
                                             and f.value.func.id == "super") and builds(f.attr):
            return True
    return False


def param_owned(cls: ast.ClassDef, attr: str, names: set) -> bool:
    """A method of the owner stores ``self.<attr> = p`` where its parameter ``p`` is annotated with
    one of the classes (textattack's ``Attack.__init__(..., search_method: SearchMethod)``: ``self.
    search_method = search_method``, then ``self.search_method.goal_function = ...``)."""
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args:
            continue
        me = fn.args.args[0].arg
        typed = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
                 if a.annotation is not None and names_in(a.annotation) & names}
        if not typed:
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in typed and \
                    any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and
                        t.value.id == me for t in n.targets):
                return True
    return False


def derived_class(local: str, value: ast.AST, names: set, defaults: dict, fn=None) -> bool:
    """``FormSet = modelformset_factory(model, formset=formset)`` with ``formset=BaseInlineFormSet``
    as the parameter's default (django's ``inlineformset_factory``, then ``FormSet.fk = fk``): a
    class-like local (CamelCase, or built by a ``*factory*`` call) made from one of the classes is
    a subclass of it, and a store on it gives that attribute to the class's instances."""
    if not isinstance(value, ast.Call):
        return False
    callee = (dotted(value.func) or "").split(".")[-1]
    if not (local[:1].isupper() and not local.isupper()) and "factory" not in callee.lower():
        return False
    passed = list(value.args) + [k.value for k in value.keywords]
    splats = {k.value.id for k in value.keywords if k.arg is None and isinstance(k.value, ast.Name)}
    if splats and fn is not None:  # ``kwargs = {"formset": formset, ...}; factory(model, **kwargs)``
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict) and \
                    any(isinstance(t, ast.Name) and t.id in splats for t in n.targets):
                passed += [v for v in n.value.values if v is not None]
    for a in passed:
        if isinstance(a, ast.Name):
            d = defaults.get(a.id)
            if a.id in names or (isinstance(d, ast.Name) and d.id in names):
                return True
    return False
