"""The method scan of a class (run once, on first use): where each ``self.x`` is assigned,
which names each method refers to, dynamic attribute writes (``setattr`` with a non-literal,
``__dict__`` updates), and alternative constructors that build with ``__new__``."""
from __future__ import annotations

import ast
import re

from .calltables import REGISTER_METHODS, register_args, setattr_on
from .keyed import keyed_by_param, name_pattern
from .mangle import mangled
from .astutil import dotted, fast_walk, first_param
from .dynamic import is_param, listing_guard, mark_dynamic, rebinds_existing, stores_others, vars_written
from .model import ClassInfo
from .instances import (computed_store_line, factory_computed, factory_stores, instance_params, named_instance_param,
                        scan_alt_ctor, self_targets)
from .storeattr import stored_names
from .fastre import WORD, Bounded


def _fstring_pattern(node: ast.JoinedStr) -> re.Pattern:
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(re.escape(str(v.value)))
        else:
            parts.append(".*")
    return re.compile("^" + "".join(parts) + "$")


def ensure_scanned(ci: ClassInfo) -> ClassInfo:
    """Fill assigned_in, self_refs, dynamic, dyn_patterns and alt_ctors (once)."""
    if not ci.scanned:
        ci.scanned = True
        _scan_methods(ci)
    return ci


_ASSIGNISH = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr)


#: calls _scan_methods must look at, by the last name of the callee: everything else is skipped
#: without computing its dotted name (the scan visits every node of every method)
_SCAN_CALLS = {"getattr", "setattr", "__setattr__", "update", "vars", "store_attr", "setdefault"} | REGISTER_METHODS


_ASSIGNISH_SET = set(_ASSIGNISH)


#: method text that needs the full node walk (calls and dict writes the statement walk cannot see)
_NEEDS_WALK: dict[str, re.Pattern] = {}


#: a text the pattern matches holds one of these words (a substring test first: the pattern has no
#: literal start, so the regex engine tries it at every position)
_NEEDS_WALK_WORDS = ("attr", "__dict__", "vars", "register_", "add_module")
assert all(any(w in m for w in _NEEDS_WALK_WORDS) for m in REGISTER_METHODS)

_REF_RES: dict[str, Bounded] = {}


def _needs_walk(selfname: str) -> re.Pattern:
    r = _NEEDS_WALK.get(selfname)
    if r is None:
        sn = re.escape(selfname)
        r = _NEEDS_WALK[selfname] = re.compile(
            rf"(?:get|set)attr\s*\(\s*{sn}\s*,|setattr\s*\(\s*(?:{sn}\s*\.\s*__class__|type\s*\(\s*{sn}\s*\))\s*,"
            rf"|{sn}\s*\.\s*(?:{'|'.join(sorted(REGISTER_METHODS))})\s*\("
            rf"|__dict__|vars\s*\(\s*{sn}\s*\)|store_attr\s*\(|__setattr__\s*\(")
    return r


def _refs_re(selfname: str) -> Bounded:
    r = _REF_RES.get(selfname)
    if r is None:
        r = _REF_RES[selfname] = Bounded(rf"{re.escape(selfname)}\s*\.\s*([A-Za-z_]\w*)", WORD | {"."})
    return r


def _scan_methods(ci: ClassInfo) -> None:
    """Every assignment to self.<x>, dynamic writes, and __new__-based alternative constructors.

    The hot loop of a cold run, so in two speeds: the attributes a method mentions come from its
    text (a superset: a mention in a comment only costs a later, exact walk), its assignments from
    a walk over statements only; the full node walk runs only for methods whose text mentions
    setattr/getattr/register_*/add_module/__dict__/vars()."""
    lines = ci.module.lines
    for mname, fn in ci.methods.items():
        kind = ci.method_kind.get(mname)
        selfname = first_param(fn) if kind in ("method", "property") else None
        if kind in ("class", "static"):
            scan_alt_ctor(ci, mname, fn)
        if kind in ("class", "static"):
            # `def _initialize_instance(cls, obj, ...): obj.x = ...`, called `self._initialize_instance(self, ...)`
            # (yt's plots): stores on the instance through a parameter
            params = instance_params(ci, mname, fn, kind)
            named = named_instance_param(ci, mname, fn, kind)
            for p in params + ([named] if named and named not in params else []):
                _walk_statements(ci, mname, fn.body, p)
                line = computed_store_line(fn, p)
                if line is not None:  # ryu's ``_Value.do_init``: ``self.__dict__.update(ourfields)``
                    mark_dynamic(ci, mname, f"stores computed names on its instance parameter {p} in {mname} "
                                            f"at line {line}")
        if kind == "class" and first_param(fn):
            # `cls.x = ...` in a classmethod: x exists (on the class) once it ran (pytest's setup_class)
            _walk_statements(ci, mname, fn.body, first_param(fn))
            # a factory: `o = cls(...); o.crawler = crawler; return o` (scrapy's from_crawler)
            for attr, line in factory_stores(fn, first_param(fn)):
                ci.assigned_in.setdefault(attr, []).append((mname, line))
            line = factory_computed(fn, first_param(fn), ci.qualname.split(".")[-1])
            if line is not None:  # `o = cls(...); setattr(o, k, v)`: the instances it builds are open
                mark_dynamic(ci, mname, f"setattr(<instance {mname} builds>, <non-literal>) at line {line}")
        if not selfname:
            continue
        text = "\n".join(lines[fn.lineno - 1:fn.end_lineno or fn.lineno]) if lines else ""
        refs = ci.self_refs.setdefault(mname, set())
        if text:
            found = _refs_re(selfname).findall(text)
            if "__" in text:  # the tree is mangled (mangle.py); the text is not
                short = ci.qualname.split(".")[-1]
                found = [mangled(short, n) for n in found]
            refs.update(found)
        if not text or (any(w in text for w in _NEEDS_WALK_WORDS) and _needs_walk(selfname).search(text)):
            _walk_method(ci, mname, fn, selfname, refs)
        else:
            _walk_statements(ci, mname, fn.body, selfname)
        if not refs:
            del ci.self_refs[mname]
    # a property's setter shares the getter's name (``methods`` keeps the getter): what it assigns
    # is assigned by ``self.<property> = v`` (tornado's WebSocketProtocol13.selected_subprotocol)
    for pname, fn in ci.setters.items():
        sn = first_param(fn)
        if sn and ci.methods.get(pname) is not fn:
            _walk_statements(ci, pname, fn.body, sn)


def _walk_statements(ci: ClassInfo, mname: str, body: list, selfname: str) -> None:
    """Assignments to self.<x> in a statement list and every block below it (nested defs too)."""
    stack = list(body)
    assignish = _ASSIGNISH_SET
    while stack:
        st = stack.pop()
        c = st.__class__
        if c in assignish:
            _scan_assign(ci, mname, st, selfname)
        if c is ast.With or c is ast.AsyncWith:
            for item in st.items:
                _scan_assign(ci, mname, item, selfname)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(st, name, None)
            if sub:
                stack.extend(sub)


def _walk_method(ci: ClassInfo, mname: str, fn: ast.AST, selfname: str, refs: set) -> None:
    """The full node walk, dispatching on the node's class."""
    Attribute, Name, Call, Subscript, Store = ast.Attribute, ast.Name, ast.Call, ast.Subscript, ast.Store
    assignish = _ASSIGNISH_SET
    for node in fast_walk(fn):
        c = node.__class__
        if c is Attribute:
            v = node.value
            if v.__class__ is Name and v.id == selfname:
                refs.add(node.attr)
                if node.ctx.__class__ is Store and node.attr == "__dict__":
                    mark_dynamic(ci, mname, f"replaces self.__dict__ in {mname} at line {node.lineno}")
        elif c in assignish:
            _scan_assign(ci, mname, node, selfname)
        elif c is Call:
            func = node.func
            last = func.id if func.__class__ is Name else func.attr if func.__class__ is Attribute else None
            if last in _SCAN_CALLS:
                _scan_call(ci, mname, node, selfname, refs)
        elif c is Subscript and node.ctx.__class__ is Store:
            v = node.value
            if isinstance(v, Call) and dotted(v.func) == "vars" and v.args and \
                    isinstance(v.args[0], Name) and v.args[0].id == selfname:
                mark_dynamic(ci, mname, f"writes vars(self) in {mname} at line {node.lineno}")
            if (dotted(node.value) or "") == f"{selfname}.__dict__":
                key = node.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):  # self.__dict__["x"] = v
                    ci.assigned_in.setdefault(key.value, []).append((mname, node.lineno))
                else:
                    mark_dynamic(ci, mname, f"writes self.__dict__ in {mname} at line {node.lineno}")


def _scan_assign(ci: ClassInfo, mname: str, node: ast.AST, selfname: str) -> None:
    targets: list = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target] if node.value is not None else []
    elif isinstance(node, ast.AugAssign):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        targets = [node.optional_vars]
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and \
            (dotted(node.value) or "") == f"{selfname}.__dict__":
        held = {t.id for t in node.targets if isinstance(t, ast.Name)}
        if held and _writes_through(ci.methods.get(mname), held):
            # d = self.__dict__; d["_block__order"] = ...: stores the walk does not follow (pyomo's
            # kernel block); reading through the local (mmdet's SamplingResult.info) stores nothing
            mark_dynamic(ci, mname, f"writes self.__dict__ through a local in {mname} at line {node.lineno}")
    for t in targets:
        for a in self_targets(t, selfname):
            ci.assigned_in.setdefault(a, []).append((mname, getattr(t, "lineno", 0)))
        if isinstance(t, ast.Attribute) and _is_class_ref(t.value, selfname):
            ci.class_names.add(t.attr)  # type(self).x = ..., self.__class__.x = ..., request.cls.x = ...


def _writes_through(fn, names: set) -> bool:
    """``fn`` stores into a dict held by one of the locals ``names`` (``d[k] = v``, ``del d[k]``,
    ``d.update(...)``, ``d.setdefault(...)``, ``d.pop(...)``)."""
    if fn is None:
        return True
    existing = set()  # keys walked from the dict itself: `for k, v in d.items(): d[k] = ...` rebinds them
    for n in fast_walk(fn):
        if isinstance(n, ast.For):
            it = n.iter.func.value if isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Attribute) and \
                n.iter.func.attr in ("items", "keys") else n.iter
            t = n.target.elts[0] if isinstance(n.target, ast.Tuple) and n.target.elts else n.target
            if isinstance(it, ast.Name) and it.id in names and isinstance(t, ast.Name):
                existing.add(t.id)
    for n in fast_walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and \
                isinstance(n.value, ast.Name) and n.value.id in names and \
                not (isinstance(n.ctx, ast.Store) and isinstance(n.slice, ast.Name) and n.slice.id in existing):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "update", "setdefault", "pop", "clear", "popitem") and \
                isinstance(n.func.value, ast.Name) and n.func.value.id in names:
            return True
    return False


def _is_class_ref(v: ast.expr, selfname: str) -> bool:
    if isinstance(v, ast.Attribute) and v.attr == "cls":
        return True
    if isinstance(v, ast.Attribute) and v.attr == "__class__" and isinstance(v.value, ast.Name) and v.value.id == selfname:
        return True
    return isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "type" and len(v.args) == 1 \
        and isinstance(v.args[0], ast.Name) and v.args[0].id == selfname


def _names_from_locals(fn) -> set[str]:
    """The parameter names of ``fn`` when it iterates over ``locals()`` (the only names a
    ``setattr`` keyed by that loop can write), else an empty set."""
    if fn is None or not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "locals"
                             for n in fast_walk(fn)):
        return set()
    a = fn.args
    return {x.arg for x in a.posonlyargs + a.args[1:] + a.kwonlyargs}


def _held_by_attr(key, selfname: str) -> bool:
    """The computed name is the value of ``self.<holder>`` (``self.add_module(self.norm_name, m)``)."""
    return isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name) and key.value.id == selfname


def _scan_call(ci: ClassInfo, mname: str, node: ast.Call, selfname: str, refs: set) -> None:
    f = dotted(node.func) or ""
    if f == "getattr" and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and \
            isinstance(node.args[0], ast.Name) and node.args[0].id == selfname:
        refs.add(str(node.args[1].value))
    named = setattr_on(node, selfname)
    if named is not None or f in ("setattr", "object.__setattr__") and len(node.args) >= 2:
        obj = node.args[0] if named is None else ast.Name(selfname)
        if isinstance(obj, ast.Name) and obj.id == selfname:
            key = node.args[1] if named is None else named[0]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                ci.assigned_in.setdefault(key.value, []).append((mname, node.lineno))
            elif isinstance(key, ast.JoinedStr):
                ci.dyn_patterns.append(_fstring_pattern(key))
            elif isinstance(key, ast.Name) and mname == "__setattr__" and is_param(ci.methods.get(mname), key.id, 1) \
                    and not stores_others(ci.methods.get(mname), selfname):
                pass  # __setattr__ passing the caller's own store on: the store is the caller's, seen there
            elif _held_by_attr(key, selfname):
                ci.attr_named.append((mname, node.lineno, key.attr))
            elif (pat := name_pattern(ci.methods.get(mname), key)) is not None:
                ci.dyn_patterns.append(pat)
            elif not (isinstance(key, ast.Name) and rebinds_existing(ci.methods.get(mname), node, selfname, key.id)) \
                    and not keyed_by_param(ci, mname, key):
                listing = listing_guard(ci.methods.get(mname), node, selfname, key.id) if isinstance(key, ast.Name) else None
                if listing is not None:
                    ci.attr_listed.append((mname, node.lineno, listing))
                else:
                    mark_dynamic(ci, mname, f"setattr(self, <non-literal>) in {mname} at line {node.lineno}")
        elif _is_class_ref(obj, selfname):
            # setattr(self.__class__, name, property(...)): scipy's distributions make every
            # parameter a class property this way
            key = node.args[1]
            params = set() if isinstance(key, ast.Constant) else _names_from_locals(ci.methods.get(mname))
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                ci.class_names.add(key.value)
            elif params:
                # litellm's configs: `for key, value in dict(locals()).items(): setattr(self.__class__,
                # key, value)` sets the method's own parameters as class attributes, nothing else
                ci.class_names.update(params)
            else:
                mark_dynamic(ci, mname, f"setattr(type(self), <non-literal>) in {mname} at line {node.lineno}")
    elif f.startswith(f"{selfname}.") and f.split(".")[-1] in REGISTER_METHODS and f.count(".") == 1:
        reg = register_args(node)
        if reg and isinstance(reg[0], ast.Constant) and isinstance(reg[0].value, str):
            ci.assigned_in.setdefault(reg[0].value, []).append((mname, node.lineno))
        elif reg and isinstance(reg[0], ast.JoinedStr):
            ci.dyn_patterns.append(_fstring_pattern(reg[0]))
        elif reg and _held_by_attr(reg[0], selfname):
            ci.attr_named.append((mname, node.lineno, reg[0].attr))
        elif reg and (pat := name_pattern(ci.methods.get(mname), reg[0])) is not None:
            ci.dyn_patterns.append(pat)
        elif not (reg and keyed_by_param(ci, mname, reg[0])):
            mark_dynamic(ci, mname, f"{f.split('.')[-1]}(<non-literal>) in {mname} at line {node.lineno}")
    elif f.split(".")[-1] == "store_attr":
        try:
            names = stored_names(node, ci.methods.get(mname), selfname)
        except ValueError:
            mark_dynamic(ci, mname, f"store_attr(<non-literal>) in {mname} at line {node.lineno}")
            return
        for a in names or ():
            ci.assigned_in.setdefault(a, []).append((mname, node.lineno))
    elif f == f"{selfname}.__dict__.update":
        mark_dynamic(ci, mname, f"writes self.__dict__ in {mname} at line {node.lineno}")
    elif f == "vars" and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == selfname:
        line = vars_written(ci.methods.get(mname), selfname)
        if line:
            mark_dynamic(ci, mname, f"writes self.__dict__ in {mname} at line {line}")
