"""Call semantics of the construction walk: ``self.m()`` and ``super().m()`` inlined along the
MRO, ``Base.__init__(self)``, closures, ``setattr``/``delattr``/``getattr`` on the instance,
calls that never return, the instance escaping into a call, and summaries of deep calls."""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Optional

from .callargs import module_method_alias, _deletes, _forget_locals, as_instance_helper, bind_constants, drop_empty, \
    facts_name_params, handed_base_init, instance_param, names_bound_in, \
    UNKNOWN_ARGS, calls_param, definite_stores_on, partial_of_base_init
from .deferred import starts_later as _starts_coroutine
from .conditions import _is_self, conjuncts, norm_test
from .calltables import KEEPS_ARGUMENTS, NON_ASSIGNING_CALLS, NORETURN_CALLS, REGISTER_METHODS, register_args, \
    setattr_on
from .astutil import built_receiver, dotted, fast_walk, first_param, is_super_call, memo_on, super_member
from .localconsts import forget_passed
from .model import ClassInfo
from .instances import alias_param
from .storeattr import stored_names
from . import state as _state
from .state import MAX_DEPTH, Frame, State, _compose, merge


class CallSemantics:
    """Mixin of Constructor: everything a call does to the path states."""

    def call_function(self, cls: ClassInfo, fn: ast.FunctionDef, states: list[State], depth: int,
                      guarded: bool = False, call: Optional[ast.Call] = None,
                      self_passed: bool = False, selfname: Optional[str] = None) -> list[State]:
        key = (cls.key, fn.name, fn.lineno)  # by def: a property's setter may read its getter (same name)
        if key in self.stack:
            # recursion: a call that returns has gone through some non-recursive path, which the
            # outer walk sees, and assignments only accumulate; so paths through the recursive call
            # can be dropped (unless the function deletes attributes)
            return [] if not _deletes(fn) else states
        if any(k[0] == cls.key and k[1] == fn.name for k in self.stack):
            # the getter of a property whose setter is running (``self.events.total(value=self.total)``
            # in the ``total`` setter): not recursion, so the paths go on; the getter is not walked
            # again (napari's progress; psychopy's TextBox2, whose setters and getters read each
            # other, took 2 s with them dropped and over 20 s walked)
            return states
        # each initialiser being walked raises the limit by one: a cooperative super().__init__
        # chain cannot recurse (the stack check above) and may be as long as the MRO (synapse's
        # storage classes chain 40+ initialisers); cutting it took the rest for never run
        if not states or depth > MAX_DEPTH and depth > MAX_DEPTH + sum(1 for k in self.stack if k[1] == "__init__"):
            return states
        selfname = selfname or first_param(fn)
        if selfname is None:
            return states
        if depth >= _state.MEMO_DEPTH:
            return self._summarised(cls, fn, states, depth, guarded, call, self_passed, selfname)
        return self._walk_call(cls, fn, states, depth, guarded, call, self_passed, selfname)

    def _summarised(self, cls, fn, states, depth, guarded, call, self_passed, selfname) -> list[State]:
        """Exit states of ``fn`` from a summary walked once per (class, method, guarded, constant
        arguments): the walk starts from an empty state and logs what it assigns and reads; each
        call composes the entry states with the summary (assignments only accumulate) and replays
        the logged reads against the composed states. A function that deletes attributes is
        summarised per entry assigned-set instead (its exits are not a union with the entry)."""
        consts = bind_constants(fn, call, self_passed) if call is not None else {}
        key = (cls.key, id(fn), guarded, tuple(sorted(consts.items(), key=lambda kv: kv[0])), selfname)
        deletes = _deletes(fn)
        tested = _tested_keys(fn)
        groups: dict[tuple, list[State]] = {}
        for s in states:  # entry facts: the conditions on the path that the function itself tests
            facts = frozenset(c for c in s.conds if c.key in tested)
            groups.setdefault((frozenset((c.key, c.holds) for c in facts), s.assigned if deletes else None),
                              []).append(s)
        out: list[State] = []
        for (facts_key, assigned), entries in groups.items():
            k = key + (facts_key, assigned)
            summary = self.memo.get(k)
            if summary is None:
                log: list = []
                prev = self.on_read
                self.on_read = lambda attr, node, frame, sts: log.append((attr, node, frame, sts))
                entry = frozenset(c for c in entries[0].conds if c.key in tested)
                # the walk starts from no stored attribute: tests decided by what the path has not
                # stored yet (a class default still in force) cannot be decided in it
                self.summarising += 1
                try:
                    exits = self._walk_call(cls, fn, [State(assigned if deletes else frozenset(), entry)], depth,
                                            guarded, call, self_passed, selfname)
                finally:
                    self.on_read = prev
                    self.summarising -= 1
                summary = self.memo[k] = (exits, log)
            exits, log = summary
            for attr, node, frame, rel in log:
                real = _compose(entries, rel, deletes)
                if real:
                    self.on_read(attr, node, frame, real)
            out += _compose(entries, exits, deletes)
        return merge(out)

    def _walk_call(self, cls, fn, states, depth, guarded, call, self_passed, selfname) -> list[State]:
        key = (cls.key, fn.name, fn.lineno)
        self.stack.append(key)
        self.inlined.add(f"{cls.qualname}.{fn.name}")
        try:
            frame = Frame(cls, fn, selfname, guarded=guarded, depth=depth,
                          consts=bind_constants(fn, call, self_passed) if call is not None else {},
                          entry_conds=frozenset().union(*(x.conds for x in states)))
            pre = self.entry_stores(cls, fn) if self.entry_stores is not None else frozenset()
            if pre:  # a decorator's wrapper stored these before the body runs
                states = [s.add(*pre) for s in states]
            for name in self.entry_calls(cls, fn) if self.entry_calls is not None else ():
                target = self.resolve_method(name, None)  # and called these methods (diffusers' @register_to_config)
                if target is not None and target[2] == "method" and (target[0].key, name, target[1].lineno) not in self.stack:
                    states = self.call_function(target[0], target[1], states, depth + 1, guarded)
            flow = self.block(fn.body, states, frame)
            out = merge(flow.normal + flow.returns)
            return _forget_locals(out, states, fn, selfname, frame.kept) if depth > 0 else out
        finally:
            self.stack.pop()

    def _aliased(self, cls, fn, kind, c: ast.Call, st: list[State], fr: Frame) -> list[State]:
        """A class/static method handed the instance (``self._initialize_instance(self, ...)``) runs
        with that parameter as the instance; other calls of such methods do nothing to it."""
        p = alias_param(fn, kind, c, fr.selfname)
        if p is None or _starts_coroutine(fn, fr):
            return st
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        natural = params[1] if kind == "class" and len(params) > 1 else params[0] if params else None
        # constants bind as usual when the instance sits where a method's self would
        call = c if p == natural and c.args and _is_self(c.args[0], fr.selfname) else None
        return self.call_function(cls, fn, st, fr.depth + 1, fr.guarded, call, kind == "static", selfname=p)

    def call(self, c: ast.Call, st: list[State], fr: Frame) -> list[State]:
        c = drop_empty(c, fr.consts)
        f = dotted(c.func) or ""
        sn = fr.selfname
        # arguments first
        for a in c.args:
            st = self.expr(a.value if isinstance(a, ast.Starred) else a, st, fr)
        for k in c.keywords:
            st = self.expr(k.value, st, fr)
        if fr.consts:
            forget_passed(c, fr.consts)
        handed = handed_base_init(c, fr.bound_super)  # f(..., super().__init__): f may build the base with it
        if handed is not None and st and partial_of_base_init(c) is None and f.split(".")[-1] not in KEEPS_ARGUMENTS:
            helper = fr.cls.module.functions.get(c.func.id) if isinstance(c.func, ast.Name) else None
            if helper is not None:  # a function of the module: it runs it if it calls that parameter
                if calls_param(helper, handed[1]):
                    st = self.call(ast.copy_location(ast.Call(func=handed[0], **UNKNOWN_ARGS), c), st, fr)
            else:  # out of sight: it may run it, or keep it (as a class chosen at run time)
                self.indirect_init = self.indirect_init or f"{dotted(c.func) or '<expression>'}(..., super().__init__)"
        if not st:
            return st
        # setattr(self, "x", v) / object.__setattr__(self, "x", v) / super().__setattr__("x", v)
        named = setattr_on(c, sn) if sn else None
        if named is not None:
            name = _const_str(named[0], fr)
            return [x.add(name) for x in st] if name is not None else st
        if f.split(".")[-1] == "store_attr":  # fastcore: the caller's parameters onto self
            try:
                names = stored_names(c, fr.fn, sn)
            except ValueError:
                names = None
            if names:
                for a in names:
                    st = [x.add(a) for x in st]
                return st
        if f == "delattr" and len(c.args) == 2 and _is_self(c.args[0], sn) and \
                isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str):
            a = c.args[1].value
            self.deleted.add(a)
            self.del_log.append(a)
            return [x.remove(a) for x in st]
        if f in ("getattr",) and len(c.args) >= 2 and _is_self(c.args[0], sn) and \
                not (isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str)):
            self.dynamic_dispatch = self.dynamic_dispatch or c.lineno
        if f in ("getattr",) and len(c.args) == 2 and _is_self(c.args[0], sn):
            k = c.args[1]
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                fake = ast.Attribute(value=c.args[0], attr=k.value, ctx=ast.Load(), lineno=c.lineno,
                                     col_offset=c.col_offset)
                self.read(k.value, fake, fr, st)
            return st
        # self.register_buffer("x", ...)
        if f.startswith(sn + ".") and f.count(".") == 1:
            name = f.split(".", 1)[1]
            if name in REGISTER_METHODS and register_args(c):
                key = _const_str(register_args(c)[0], fr)
                if key is None:  # a computed name: it may register any attribute
                    self.on_escape(c, fr)
                    return st
                return [x.add(key) for x in st]
            target = self.resolve_method(name, None)
            if target is not None:
                cls, fn, kind = target
                if kind == "method":
                    if name in cls.noreturn_methods:
                        return []
                    if _starts_coroutine(fn, fr):
                        return st
                    out = self.call_function(cls, fn, st, fr.depth + 1, fr.guarded, c)
                    # self.contribute_to_object(self): what it stores on that parameter lands on the
                    # instance too (billiard's Worker)
                    handed = alias_param(fn, "class", c, sn)
                    return [x.add(*sorted(definite_stores_on(fn.body, handed))) for x in out] if handed else out
                out = self._aliased(cls, fn, kind, c, st, fr)
                # self.setup_class(): what a classmethod surely stores on cls is a class attribute now (snorkel)
                stored = definite_stores_on(fn.body, first_param(fn) or "cls") if kind == "class" else ()
                return [x.add(*sorted(stored)) for x in out] if stored else out
            # Thread.start() during construction: run() begins now, concurrently with the rest of
            # __init__, so its reads happen here; what it assigns may not have happened yet
            if name == "start" and any(getattr(b, "kind", None) == "thread" for b in self.mro):
                run = self.resolve_method("run", None)
                if run is not None and run[2] == "method":
                    self.call_function(run[0], run[1], st, fr.depth + 1, fr.guarded)
            if name == "__attrs_init__":
                # attrs' generated initialiser, which a class's own __init__ may call (bentoml's
                # ModelInfo): it sets every attrs field of the MRO, init=False ones included
                got = frozenset().union(*(k.fields for k in self.mro
                                          if isinstance(k, ClassInfo) and k.field_kind == "attrs"))
                # the generated initialiser ran (its __attrs_post_init__ runs too)
                self.inlined.update(f"{k.qualname}.__init__" for k in self.mro if isinstance(k, ClassInfo) and k.field_kind)
                if got:
                    return [x.add(*sorted(got)) for x in st]
            # not a known method: a read of self.<name> (maybe a callable attribute)
            self.read(name, c.func, fr, st)  # type: ignore[arg-type]
            return st
        if isinstance(c.func, ast.Name) and isinstance(fr.bound_super.get(c.func.id), ast.Attribute):  # superinit()
            c = ast.copy_location(ast.Call(func=fr.bound_super[c.func.id], args=c.args, keywords=c.keywords), c)
        elif isinstance(c.func, ast.Name) and partial_of_base_init(fr.bound_super.get(c.func.id)) is not None:
            # init = functools.partial(super().__init__, parent); init(): the base's, arguments unknown
            c = ast.copy_location(ast.Call(func=partial_of_base_init(fr.bound_super[c.func.id]), **UNKNOWN_ARGS), c)
        elif isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name) and \
                isinstance(fr.bound_super.get(c.func.value.id), ast.Call):
            # super_class = super(); super_class.__call__(root)
            func = ast.copy_location(ast.Attribute(value=fr.bound_super[c.func.value.id], attr=c.func.attr,
                                                   ctx=ast.Load()), c.func)
            c = ast.copy_location(ast.Call(func=func, args=c.args, keywords=c.keywords), c)
        elif (alias := module_method_alias(fr, c)) is not None:  # _init = Base.__init__ (top level); _init(self)
            c = ast.copy_location(ast.Call(func=alias, args=c.args, keywords=c.keywords), c)
        if super_member(c.func) is not c.func:  # getattr(super(), "__init__")(...) is super().__init__(...)
            c = ast.copy_location(ast.Call(func=super_member(c.func), args=c.args, keywords=c.keywords), c)
        # super().__init__(...) / super().helper(...)
        if isinstance(c.func, ast.Attribute) and is_super_call(c.func.value):
            name = c.func.attr
            after = fr.cls
            sargs = c.func.value.args
            if sargs:  # super(Named, self): start after Named, not after the defining class
                named = self.resolve_init_class(fr.cls, dotted(sargs[0]) or "")
                if named is not None and not isinstance(named, str):
                    after = named
                elif isinstance(named, str):  # super(nn.Module, self): after a library class of the MRO
                    after = next((m for m in self.mro if not isinstance(m, ClassInfo) and
                                  getattr(m, "name", None) == named), after)
            target = self.resolve_method(name, after)
            if target is None:
                if name == "__init__":
                    self.external_init_ran = True
                    self.external_init_kw.update(k.arg for k in c.keywords if k.arg)
                return st
            cls, fn, kind = target
            if kind == "method" and not _starts_coroutine(fn, fr):
                return self.call_function(cls, fn, st, fr.depth + 1, fr.guarded, c)
            return st
        # Base.__init__.__wrapped__(self, ...): the undecorated function under functools.wraps (captum)
        if isinstance(c.func, ast.Attribute) and c.func.attr == "__wrapped__" and isinstance(c.func.value, ast.Attribute):
            c = ast.copy_location(ast.Call(func=c.func.value, args=c.args, keywords=c.keywords), c)
        # Base.prop.fset(self, v): Base's property setter runs on the instance (qutip's subclasses
        # hand their `options` setter on with `Solver.options.fset(self, new_options)`)
        if isinstance(c.func, ast.Attribute) and c.func.attr == "fset" and isinstance(c.func.value, ast.Attribute) \
                and c.args and _is_self(c.args[0], sn):
            owner = self.resolve_init_class(fr.cls, dotted(c.func.value.value) or "")
            prop, found = c.func.value.attr, None
            for k in (self.mro_of(owner) if isinstance(owner, ClassInfo) else ()):
                if not isinstance(k, ClassInfo):
                    break  # a library class: its property is out of sight
                if prop in k.setters:
                    found = (k, k.setters[prop])
                if found or prop in k.methods or prop in k.class_names:
                    break  # the first class of Owner's MRO that defines the name owns the property
            if found is not None and not _starts_coroutine(found[1], fr):
                return self.call_function(found[0], found[1], st, fr.depth + 1, fr.guarded, c, True)
            return st
        # Base.__init__(self, ...) / Base.helper(self, ...) / Base.__init__(self=self, ...)
        self_kw = next((k.arg for k in c.keywords if k.arg and _is_self(k.value, sn)), None) if not c.args else None
        # ``Registry().register(self, v)`` is a method of the object the call returns, handed the
        # instance (glue's Subset.label setter): not run on the instance; ``make_cls().__init__(self)``
        # runs a class chosen at run time
        built = isinstance(c.func, ast.Attribute) and built_receiver(c.func.value)
        if isinstance(c.func, ast.Attribute) and (c.args and _is_self(c.args[0], sn) or self_kw) and \
                (not built or c.func.attr == "__init__"):
            base = None if built else self.resolve_init_class(fr.cls, dotted(c.func.value) or "")
            if base is not None and not isinstance(base, str):
                fn = base.methods.get(c.func.attr)
                # Base.m is looked up along Base's own MRO, not the instance's (botorch's OutcomeTransform.__init__
                # is nn.Module's, whatever the subclass mixes in after it)
                target = (base, fn) if fn is not None else self.resolve_method(c.func.attr, base, inclusive=True, own=base)
                if target is not None and _starts_coroutine(target[1], fr):
                    return st
                tkind = target[0].method_kind.get(target[1].name, "method") if target is not None else "method"
                if tkind in ("class", "static"):  # Cls.m(self, ...) on a class/static method
                    return self._aliased(target[0], target[1], tkind, c, st, fr)
                if target is not None and (not self_kw or first_param(target[1]) == self_kw):
                    if self_kw:  # the instance is passed by name: the other keywords bind as usual
                        c = ast.Call(func=c.func, args=[], keywords=[k for k in c.keywords if k.arg != self_kw])
                    return self.call_function(target[0], target[1], st, fr.depth + 1, fr.guarded, c, not self_kw)
                if target is None and fn is None and c.func.attr == "__init__":
                    self.external_init_ran = True  # Base has no __init__: its library base's runs
                    self.external_init_kw.update(k.arg for k in c.keywords if k.arg)
                return st
            if c.func.attr == "__init__":
                self.external_init_ran = True
                self.external_init_kw.update(k.arg for k in c.keywords if k.arg)
                recv = dotted(c.func.value)
                root, mod = (recv or "").split(".")[0], fr.cls.module
                if built or recv is None or root == sn or not (root in mod.imports or root in mod.classes
                                                               or root in mod.aliases or mod.star_imports):
                    self.indirect_init = self.indirect_init or f"{recv or '<expression>'}.__init__"
                return st
        # a closure defined earlier in this function: run its body here
        if isinstance(c.func, ast.Name) and c.func.id in fr.local_funcs:
            local = fr.local_funcs[c.func.id]
            key = (fr.cls.key, "<closure>", id(local))  # by node: nested closures may share a name
            if key in self.stack:
                return [] if not _deletes(local) else st
            if fr.depth < MAX_DEPTH:
                self.stack.append(key)
                try:
                    inner = replace(fr, depth=fr.depth + 1, local_funcs=dict(fr.local_funcs),
                                    consts={})  # the closure's own names are not the caller's
                    flow = self.block(local.body, st, inner)
                    return _forget_locals(merge(flow.normal + flow.returns), st, local, fr.selfname)
                finally:
                    self.stack.pop()
        # helper(self, ...): a function of the class's module that takes the instance first and runs
        # a base initialiser on it runs with its first parameter as the instance (litellm's
        # _chat_wrapper_init(self, ...) calls CustomStreamWrapper.__init__(wrapper, ...)); other
        # helpers stay escapes (kornia's weight_init(module) is written for any module)
        if isinstance(c.func, ast.Name) and c.args and _is_self(c.args[0], sn):
            helper = fr.cls.module.functions.get(c.func.id)
            if helper is not None and helper.args.args and not helper.args.posonlyargs and \
                    _runs_base_init(helper) and f not in NORETURN_CALLS and not self.is_noreturn_call(c, fr):
                return self.call_function(fr.cls, helper, st, fr.depth + 1, fr.guarded, c, True)
        # helper(name, ser, self): a function of the class's module handed the instance that stores
        # on that parameter itself runs with it as the instance (salabim's _set_name); the instance
        # still escapes, as before (tensordict's _init_flat(self, ...) sets a few of its attributes,
        # and what else happens to a class handed away is not this rule's to judge)
        if isinstance(c.func, ast.Name) and c.func.id in fr.cls.module.functions and c.func.id not in fr.local_funcs \
                and c.func.id not in names_bound_in(fr.fn):  # not a parameter or local of that name
            helper = fr.cls.module.functions[c.func.id]
            p = instance_param(helper, c, sn) if sn and not _starts_coroutine(helper, fr) else None
            first = bool(c.args) and _is_self(c.args[0], sn)  # constants bind as for a method's self
            if p is not None and facts_name_params(st, helper, p):
                p = None  # the caller's facts about a name the helper's parameters reuse would decide its tests
            if p is not None and f not in NORETURN_CALLS and not self.is_noreturn_call(c, fr):
                self.on_escape(c, fr)
                return self.call_function(fr.cls, as_instance_helper(helper), st, fr.depth + 1, fr.guarded,
                                          c if first else None, first, selfname=p)
        # evaluate the callee expression (reads in it), then noreturn and escapes
        if not isinstance(c.func, ast.Name):
            st = self.expr(c.func, st, fr)
        if f in NORETURN_CALLS or self.is_noreturn_call(c, fr):
            return []
        if f not in NON_ASSIGNING_CALLS and (any(_is_self(a, sn) for a in c.args) or
                                             any(_is_self(k.value, sn) for k in c.keywords)):
            self.on_escape(c, fr)
        return st


def _runs_base_init(fn: ast.FunctionDef) -> bool:
    """``fn`` calls ``Cls.__init__(p, ...)`` on its first parameter ``p``."""
    p = first_param(fn)
    return p is not None and memo_on(fn, "_pk_runs_base_init", lambda: any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__" and
        n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == p for n in fast_walk(fn)))


def _const_str(node: ast.expr, fr: Frame) -> Optional[str]:
    """A string literal, or a parameter the call bound to one (kornia's
    ``_register_transform_tensor(self, "scale_factor", v)`` registers ``name``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and isinstance(fr.consts.get(node.id), str):
        return fr.consts[node.id]
    return None


def _tested_keys(fn: ast.AST) -> frozenset:
    """Condition keys the function's own branch tests produce (the entry facts its summary
    depends on)."""
    got = getattr(fn, "_pk_tested", None)
    if got is None:
        sn = first_param(fn) or "self"
        keys = set()
        for node in fast_walk(fn):
            test = getattr(node, "test", None) if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) else None
            if test is not None:
                keys.update(norm_test(n, sn) for n, _p in conjuncts(test, True))
        got = fn._pk_tested = frozenset(keys)  # type: ignore[attr-defined]
    return got

