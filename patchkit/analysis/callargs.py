"""What a call binds and what it leaves behind: constant arguments bound to parameters, the
callee's locals forgotten at return, and whether a function deletes attributes."""
from __future__ import annotations

import ast
import functools
import re
from typing import Optional

from .conditions import EVENT
from .localconsts import EMPTY, UNKNOWN, DictConst, literal, none_default_rebinds, stable_dict_params
from .astutil import WORD, decorator_name, dotted, fast_walk, is_super_call, memo_on
from .state import State, merge

def handed_base_init(c: ast.Call, bound_super: dict):
    """(the ``super(...).__init__`` an argument of ``c`` hands over, itself or through a local bound
    to it; the parameter of the callee, by position or keyword) for skyfield's ``Topos``, which
    passes ``super(Topos, self).__init__`` as the class ``latlon()`` builds. None otherwise."""
    for i, a in enumerate(c.args):
        ref = bound_super.get(a.id) if isinstance(a, ast.Name) else a
        if _is_base_init(ref):
            return ref, i
    for k in c.keywords:
        ref = bound_super.get(k.value.id) if isinstance(k.value, ast.Name) else k.value
        if k.arg and _is_base_init(ref):
            return ref, k.arg
    return None


def _is_base_init(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "__init__" and is_super_call(node.value)


def partial_of_base_init(v: ast.expr):
    """``functools.partial(super().__init__, ...)``: the ``super().__init__`` it wraps, else None."""
    if isinstance(v, ast.Call) and (dotted(v.func) or "").split(".")[-1] == "partial" and v.args and \
            _is_base_init(v.args[0]):
        return v.args[0]
    return None


def calls_param(fn: ast.AST, where) -> bool:
    """Function ``fn`` calls the parameter a call binds at ``where`` (a position or a keyword)."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    name = params[where] if isinstance(where, int) and where < len(params) else where if isinstance(where, str) else None
    return name is not None and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
                                    for n in fast_walk(fn))


#: a call with arguments nobody knows (``f(*a, **k)``): binds no constant in the callee
UNKNOWN_ARGS = dict(args=[ast.Starred(value=ast.Name(id="_pk_args", ctx=ast.Load()), ctx=ast.Load())],
                    keywords=[ast.keyword(arg=None, value=ast.Name(id="_pk_kwargs", ctx=ast.Load()))])


def definite_stores_on(body: list, name: str) -> set:
    """Attributes every pass through ``body`` stores on the local ``name`` (``obj.x = ...`` in the
    straight line, or in both arms of an ``if``), up to a statement that may leave the body or
    rebinds ``name``: what ``self.contribute_to_object(self)`` surely stores on the instance."""
    out: set = set()
    for st in body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                for n in ast.walk(t):
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
                        out.add(n.attr)
                    elif isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                        return out  # rebound: later stores are on something else
        elif isinstance(st, ast.If):
            # ``if not hasattr(obj, "x"): obj.x = ...``: the other arm already has x
            there = {k.value for t in [st.test] if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)
                     for c in [t.operand] if isinstance(c, ast.Call) and dotted(c.func) == "hasattr"
                     and len(c.args) == 2 and isinstance(c.args[0], ast.Name) and c.args[0].id == name
                     for k in [c.args[1]] if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            out |= definite_stores_on(st.body, name) & (definite_stores_on(st.orelse, name) | there)
        elif isinstance(st, ast.Expr) and not isinstance(st.value, (ast.Yield, ast.YieldFrom, ast.Await)):
            continue
        elif not isinstance(st, (ast.Pass, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                                 ast.ImportFrom)):
            return out  # a loop, a with, a try, a return: what follows may not run
        if any(isinstance(n, (ast.Return, ast.Raise, ast.Break, ast.Continue)) for n in ast.walk(st)
               if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))):
            return out
    return out


def _deletes(fn: ast.AST) -> bool:
    cached = getattr(fn, "_pk_deletes", None)
    if cached is None:
        cached = any(isinstance(n, ast.Delete) or (isinstance(n, ast.Call) and dotted(n.func) == "delattr")
                     for n in fast_walk(fn))
        fn._pk_deletes = cached  # type: ignore[attr-defined]
    return cached


def _forget_locals(out: list, before: list, fn: ast.AST, selfname: str, kept: set = frozenset()) -> list:
    """Facts about a callee's own names (its parameters and locals) end with the call: a second
    call, or another helper with a local of the same name, must not be pruned by them. Names it
    stored under their own name (``self.mode = mode``) stay: they now describe the attribute."""
    own = _locals(fn, selfname, frozenset(kept))
    if not own:
        return out
    known = set().union(*(x.conds for x in before)) if before else set()
    if all(WORD.fullmatch(n) for n in own):
        def mentions(key):
            return not own.isdisjoint(words(key))
    else:  # a name with characters ``\w`` does not take (a combining mark): the whole-name pattern
        pat = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(own)) + r")\b")
        mentions = pat.search
    return merge([State(x.assigned, frozenset(c for c in x.conds if c in known or c.origin == EVENT or not mentions(c.key)))
                  for x in out])


@functools.lru_cache(maxsize=16384)
def words(text: str) -> frozenset:
    """The maximal runs of word characters in ``text``: a name occurs in it as a whole word
    (``\\bname\\b``) exactly when it is one of them."""
    return frozenset(WORD.findall(text))


def _locals(fn: ast.AST, selfname: str, kept: frozenset) -> frozenset:
    """The function's own names (parameters and locals), minus ``kept``."""
    own = getattr(fn, "_pk_own", None)
    if own is None:
        a = fn.args
        own = frozenset({p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
                        | ({a.vararg.arg} if a.vararg else set()) | ({a.kwarg.arg} if a.kwarg else set())
                        | _rebound(fn))
        fn._pk_own = own  # type: ignore[attr-defined]
    return own - {selfname} - kept


def _rebound(fn: ast.AST) -> set:
    """Names a function (re)binds anywhere in its body (cached on the node)."""
    cached = getattr(fn, "_pk_rebound", None)
    if cached is None:
        cached = {n.id for n in fast_walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        cached |= {n for st in fast_walk(fn) if isinstance(st, (ast.Global, ast.Nonlocal)) for n in st.names}
        fn._pk_rebound = cached  # type: ignore[attr-defined]
    return cached


#: decorators that hand a method the arguments of its call unchanged
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "abstractmethod", "override", "overload", "final",
                               "setter", "getter", "deleter", "property"})


def bind_constants(fn: ast.FunctionDef, call: ast.Call, self_passed: bool) -> dict:
    """Parameter -> value for the parameters a call fixes to a literal (explicitly, or by omitting
    one that has a literal default; ``dict(k=1)`` / ``{"k": 1}`` bind a :class:`DictConst`),
    leaving out any the function rebinds. Calls with ``*args`` or
    ``**kwargs`` bind nothing (positions and names are unknown)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return {}
    a = fn.args
    positional = a.posonlyargs + a.args
    params = positional[1:]  # the first is self
    args = call.args[1:] if self_passed else call.args
    if len(args) > len(params) and a.vararg is None:
        return {}
    given: dict[str, ast.expr] = {p.arg: v for p, v in zip(params, args)}
    for k in call.keywords:
        given[k.arg] = k.value
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    out = {}
    for name in [p.arg for p in params] + [p.arg for p in a.kwonlyargs]:
        node = given.get(name, defaults.get(name) if name not in given else None)
        v = literal(node)
        if v is not UNKNOWN and not (isinstance(v, DictConst) and name not in stable_dict_params(fn)):
            out[name] = v
    # ``*args`` / ``**kwargs`` the call leaves empty: a pass-through ``super().__init__(*args,
    # **kwargs)`` then passes nothing, and the base's defaults hold (neo's BaseRawWithBufferApiIO).
    # Not through a decorator: its wrapper may fill them (``f(self, *(args or (640, 480)))``)
    wrapped = any(decorator_name(d).split(".")[-1] not in _PLAIN_DECORATORS for d in getattr(fn, "decorator_list", ()))
    if a.vararg is not None and len(args) <= len(params) and not wrapped:
        out[EMPTY + a.vararg.arg] = EMPTY
    if a.kwarg is not None and not wrapped and all(k.arg in given and k.arg in {p.arg for p in params + a.kwonlyargs}
                                   for k in call.keywords):
        out[EMPTY + EMPTY + a.kwarg.arg] = EMPTY
        if a.kwarg.arg in stable_dict_params(fn):
            out[a.kwarg.arg] = DictConst()  # ``if kwargs: self.update(kwargs)`` in UserDict.__init__
    if out:
        rebound = _rebound(fn)
        # ``if options is None: options = {}`` rebinds only a None: another bound value stays
        kept = none_default_rebinds(fn)
        out = {k: v for k, v in out.items()
               if k.lstrip(EMPTY) not in rebound or (k in kept and v is not None)}
    return out




def drop_empty(call: ast.Call, consts: dict) -> ast.Call:
    """``call`` without the ``*name`` / ``**name`` arguments that ``consts`` knows are empty."""
    if not consts:
        return call
    args = [x for x in call.args if not (isinstance(x, ast.Starred) and isinstance(x.value, ast.Name)
                                         and consts.get(EMPTY + x.value.id) == EMPTY)]
    kws = [k for k in call.keywords if not (k.arg is None and isinstance(k.value, ast.Name)
                                            and consts.get(EMPTY + EMPTY + k.value.id) == EMPTY)]
    if len(args) == len(call.args) and len(kws) == len(call.keywords):
        return call
    return ast.copy_location(ast.Call(func=call.func, args=args, keywords=kws), call)


def instance_param(helper: ast.FunctionDef, c: ast.Call, sn: str):
    """The parameter of module function ``helper`` that call ``c`` binds the instance to, when the
    helper stores attributes on that parameter itself (``object._name = ...``: salabim's
    ``_set_name(name, self.env._nameserializeQueue, self)``), else None. A helper that only passes
    the instance on or sets what hangs off it (``module.weight.data = ...``, written for any module)
    is no store on the instance."""
    params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
    p = None
    for i, a in enumerate(c.args):
        if isinstance(a, ast.Starred):
            return None
        if isinstance(a, ast.Name) and a.id == sn:
            p = params[i] if i < len(params) else None
            break
    if p is None:
        names = set(params[len(helper.args.posonlyargs):]) | {a.arg for a in helper.args.kwonlyargs}
        p = next((k.arg for k in c.keywords if k.arg in names and isinstance(k.value, ast.Name)
                  and k.value.id == sn), None)
    if p is None:
        return None
    stores = memo_on(helper, "_pk_param_stores", lambda: _param_stores(helper))
    return p if p in stores else None


def _param_stores(fn: ast.FunctionDef) -> frozenset:
    """Parameters of ``fn`` that its own body (not a nested function) assigns an attribute on and
    never rebinds (``obj = Other(); obj.name = name`` stores on another object)."""
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    params -= {n.id for n in fast_walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    out = set()
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                for x in ast.walk(t):
                    if isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Store) and \
                            isinstance(x.value, ast.Name) and x.value.id in params:
                        out.add(x.value.id)
        todo.extend(ast.iter_child_nodes(n))
    return frozenset(out)


def as_instance_helper(helper: ast.FunctionDef) -> ast.FunctionDef:
    """``helper`` under a name no method can have (``<function _set_name>``): the walk files what it
    ran by name, and a method of the class called like the module function must not count as run."""
    def rename():
        import copy
        twin = copy.copy(helper)
        twin.name = f"<function {helper.name}>"
        return twin
    return memo_on(helper, "_pk_as_instance", rename)


def names_bound_in(fn) -> frozenset:
    """Parameters and local names ``fn`` binds (a name that shadows a module function)."""
    def compute():
        a = fn.args
        out = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        out |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        out |= {n.id for n in fast_walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        return frozenset(out)
    return memo_on(fn, "_pk_bound_names", compute)


def facts_name_params(states, helper, instance: str) -> bool:
    """A path fact of the caller names one of ``helper``'s parameters other than the instance's: the
    helper's tests of that parameter would read the caller's facts about its own name (a literal the
    call binds is one thing, the caller's ``flag`` another)."""
    params = {a.arg for a in helper.args.posonlyargs + helper.args.args + helper.args.kwonlyargs} - {instance}
    return any(w in params for x in states for c in x.conds for w in re.findall(r"[A-Za-z_]\w*", c.key))


def module_method_alias(fr, c: ast.Call) -> Optional[ast.expr]:
    """``Cls.m`` (as an expression) for a call ``name(self, ...)`` where ``name`` is a top-level
    alias ``name = Cls.m`` of the walked method's module, ``Cls`` one of its classes or imported
    names, and the method binds no ``name`` of its own."""
    from .conditions import _is_self
    if not (isinstance(c.func, ast.Name) and c.args and _is_self(c.args[0], fr.selfname)):
        return None
    name = c.func.id
    target = fr.cls.module.aliases.get(name)
    if not target or target.count(".") != 1:
        return None
    owner, attr = target.split(".")
    mod = fr.cls.module
    if owner not in mod.classes and owner not in mod.imports:
        return None
    if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in fast_walk(fr.fn)) or \
            any(a.arg == name for a in ast.walk(fr.fn.args) if isinstance(a, ast.arg)):
        return None
    return ast.Attribute(value=ast.Name(id=owner, ctx=ast.Load()), attr=attr, ctx=ast.Load())
