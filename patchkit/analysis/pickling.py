"""What unpickling gives back: the attribute names ``__getstate__`` puts in the state and
``__setstate__`` restores or assigns, where the code says so plainly. Unpickling never runs
``__init__``: the instance is made by ``object.__new__`` and filled from the state. ``restored``
answers None wherever the shapes below do not cover the code (no finding is better than a guess).

State shapes (``__getstate__``):
- ``listed``: a mapping over a literal name list, ``{a: getattr(self, a, None) for a in self.__attrs__}``
  or ``dict((a, getattr(self, a)) for a in NAMES)``, or a dict display with literal keys;
- ``copied``: ``state = self.__dict__.copy()`` (``dict(self.__dict__)``, ``copy.copy(...)``), then
  ``del state["k"]`` / ``state.pop("k"[, d])`` drops names, ``state["k"] = v`` keeps them.
``__setstate__``: absent (the state becomes ``__dict__``), or restoring it whole
(``self.__dict__.update(state)``, ``vars(self).update(state)``, ``for k, v in state.items():
setattr(self, k, v)``) and/or assigning names itself, also through the methods it calls."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from .astutil import dotted, fast_walk, first_param, self_attr

#: how deep ``__setstate__``'s own ``self.<name>()`` calls are followed for stores
DEPTH = 3
_COPIES = {"copy.copy", "dict", "copy.deepcopy"}


@dataclass(frozen=True)
class Restored:
    """Unpickling's view of one class: ``kept`` names come back (None: every name construction
    assigned, less ``dropped``), ``assigned`` are set by ``__setstate__`` and what it calls."""

    kept: Optional[frozenset]
    dropped: frozenset
    assigned: frozenset
    #: where the state is made (for the finding's reason)
    line: int
    #: 'listed' or 'copied'
    shape: str
    #: qualnames of the class whose ``__getstate__`` runs and of its bases (the code its author saw)
    owners: frozenset = frozenset()

    def missing(self, constructed) -> frozenset:
        """Names construction assigns that an unpickled instance lacks."""
        gone = frozenset(constructed) - self.kept if self.kept is not None else self.dropped & frozenset(constructed)
        return gone - self.assigned


def restored(an, facts) -> Optional[Restored]:
    """``Restored`` for the class whose MRO is ``facts.linear``, or None where pickling is the
    default (nothing dropped), customised beyond these shapes, or defined by library code."""
    gs = an.resolve_method(facts.linear, "__getstate__")
    if gs is None or gs[0].module.external or gs[2] != "method" or \
            any(getattr(e, "kind", "") != "ordinary" for e in facts.externals):
        return None  # a library base may pickle its own way (BaseException.__reduce__ re-runs __init__);
        # ``object``, ``ABC``, ``Generic`` and the builtin containers do not
    for name in ("__reduce__", "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__", "__getattr__"):
        m = an.resolve_method(facts.linear, name)
        if m is not None and not (m[0].module.external and name != "__getattr__"):
            return None  # rebuilt by other means, or every missing name answered at run time
    state = _state(gs[1], facts)
    if state is None:
        return None
    kept, dropped, line, shape = state
    at = next(i for i, c in enumerate(facts.linear) if c is gs[0])
    owners = frozenset(getattr(c, "qualname", "") for c in facts.linear[at:])
    ss = an.resolve_method(facts.linear, "__setstate__")
    if ss is None:
        return Restored(kept, dropped, frozenset(), line, shape, owners)
    if ss[0].module.external:
        return None
    got = _setstate(an, facts, ss[0], ss[1])
    if got is None:
        return None
    whole, assigned = got
    if not whole:  # __setstate__ keeps nothing of the state by itself: only what it assigns
        kept, dropped = frozenset(), frozenset()
        return Restored(kept, dropped, assigned, line, shape, owners) if shape == "listed" else None
    return Restored(kept, dropped, assigned, line, shape, owners)


def _class_names(facts, name: str) -> Optional[frozenset]:
    """The strings of the class-level list ``name`` as the instance sees it (``listed.py``), or None
    (also where a class body grows it with ``+=``)."""
    from .listed import listed_names
    if any(isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id == name
           for c in facts.classes for st in getattr(c.node, "body", ())):
        return None
    return listed_names(facts.classes, name)


def _strings(node) -> Optional[frozenset]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return frozenset(e.value for e in node.elts)
    return None


def _names_of(node, sn: str, facts) -> Optional[frozenset]:
    """The names a comprehension iterates: ``self.X`` / ``cls.X`` / ``type(self).X`` / a literal."""
    if isinstance(node, ast.Attribute):
        recv = node.value
        if (isinstance(recv, ast.Name) and recv.id in (sn, "cls")) or (
                isinstance(recv, ast.Call) and dotted(recv.func) == "type" and len(recv.args) == 1
                and isinstance(recv.args[0], ast.Name) and recv.args[0].id == sn) or (
                isinstance(recv, ast.Attribute) and recv.attr == "__class__" and isinstance(recv.value, ast.Name)
                and recv.value.id == sn):
            return _class_names(facts, node.attr)
        return None  # ``self.cfg.fields``: another object's list
    return _strings(node)


def _listed(value, sn: str, facts) -> Optional[frozenset]:
    """The keys of a dict built over a literal name list, or of a dict display with literal keys."""
    if isinstance(value, ast.Dict):
        if value.keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
            return frozenset(k.value for k in value.keys)
        return None
    comp = None
    if isinstance(value, ast.DictComp):
        comp = value
    elif isinstance(value, ast.Call) and dotted(value.func) == "dict" and len(value.args) == 1 and \
            isinstance(value.args[0], (ast.GeneratorExp, ast.ListComp)):
        comp = value.args[0]
    if comp is None or len(comp.generators) != 1 or comp.generators[0].ifs:
        return None
    return _names_of(comp.generators[0].iter, sn, facts)


def _is_dict_copy(value, sn: str) -> bool:
    def is_dict(n):
        return (isinstance(n, ast.Attribute) and n.attr == "__dict__" and isinstance(n.value, ast.Name)
                and n.value.id == sn) or (isinstance(n, ast.Call) and dotted(n.func) == "vars"
                                          and len(n.args) == 1 and isinstance(n.args[0], ast.Name)
                                          and n.args[0].id == sn)
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args and is_dict(value.func.value):
            return True
        if dotted(value.func) in _COPIES and len(value.args) == 1 and is_dict(value.args[0]):
            return True
    return False


def _state(fn, facts):
    """(kept or None, dropped, line, shape) of ``__getstate__`` ``fn``, or None."""
    sn = first_param(fn)
    if not sn:
        return None
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        kept = _listed(body[0].value, sn, facts)
        return None if kept is None else (kept, frozenset(), body[0].lineno, "listed")
    # state = <copy of self.__dict__>; del / pop / item stores; return state
    if len(body) < 2 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1 or \
            not isinstance(body[0].targets[0], ast.Name) or not _is_dict_copy(body[0].value, sn):
        return None
    var = body[0].targets[0].id
    last = body[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name) and last.value.id == var):
        return None
    dropped: set[str] = set()
    for st in body[1:-1]:
        key = _drop(st, var)
        if key is None:
            return None  # anything else done to the state: not this shape
        if key:
            dropped.add(key)
    return (None, frozenset(dropped), body[0].lineno, "copied") if dropped else None


def _drop(st, var: str) -> Optional[str]:
    """The key ``st`` drops from ``var`` ('' where it keeps every key), or None for another statement."""
    def key_of(n):
        return n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else None
    if isinstance(st, ast.Delete) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Subscript) and \
            isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == var:
        return key_of(st.targets[0].slice)
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) and \
            st.value.func.attr == "pop" and isinstance(st.value.func.value, ast.Name) and \
            st.value.func.value.id == var and st.value.args:
        return key_of(st.value.args[0])
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Subscript) and \
            isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == var and \
            key_of(st.targets[0].slice) is not None:
        return ""  # the key stays (with another value)
    return None


def _setstate(an, facts, owner, fn):
    """(restores the state whole, names assigned) of ``__setstate__`` and the methods it calls, or
    None where it does something these shapes do not cover (runs ``__init__``, a base's
    ``__setstate__``, stores a computed name from something else than the state)."""
    sn = first_param(fn)
    params = [a.arg for a in fn.args.args]
    if not sn or len(params) < 2:
        return None
    state = params[1]
    whole = False
    assigned: set[str] = set()
    todo, seen = [(owner, fn, 0)], set()
    while todo:
        cls, f, depth = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        s = first_param(f) or sn
        for n in fast_walk(f):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        a = self_attr(e, s)
                        if a == "__dict__":
                            whole = True  # ``self.__dict__ = state``
                        elif a:
                            assigned.add(a)
                        elif isinstance(e, ast.Subscript) and self_attr(e.value, s) == "__dict__":
                            key = e.slice
                            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                                return None  # ``self.__dict__[k] = v``: computed
                            assigned.add(key.value)
            if not isinstance(n, ast.Call):
                continue
            name = dotted(n.func) or ""
            if isinstance(n.func, ast.Attribute) and n.func.attr in ("__init__", "__setstate__"):
                return None  # super().__setstate__(state), Base.__init__(self): rebuilt another way
            if name not in ("setattr", "object.__setattr__") and any(
                    isinstance(x, ast.Name) and x.id == s for x in [*n.args, *(k.value for k in n.keywords)]):
                return None  # the instance handed to other code, which may fill it (sqlalchemy's
                # _AssociationList: ``parent._inflate(self)`` sets its getter and setter)
            if isinstance(n.func, ast.Attribute) and n.func.attr == "update" and f is fn and n.args and \
                    isinstance(n.args[0], ast.Name) and n.args[0].id == state:
                whole = True
                continue
            if isinstance(n.func, ast.Attribute) and n.func.attr == "__setattr__" and name != "object.__setattr__":
                key = n.args[0] if n.args else None  # ``super().__setattr__("a", v)``
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                assigned.add(key.value)
                continue
            if name in ("setattr", "object.__setattr__") and len(n.args) == 3:
                key = n.args[1]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    assigned.add(key.value)
                elif f is fn and _loops_over_state(fn, n, state):
                    whole = True
                else:
                    return None
                continue
            if not isinstance(n.func, ast.Attribute) or depth >= DEPTH:
                continue
            recv = n.func.value
            if isinstance(recv, ast.Name) and recv.id == s:
                m = an.resolve_method(facts.linear, n.func.attr)
            elif isinstance(recv, ast.Call) and dotted(recv.func) == "super":
                m = an.resolve_method(facts.linear, n.func.attr, after=cls)  # pip's adapter mixin
            else:
                continue
            if m is not None and m[2] == "method" and not m[0].module.external:
                todo.append((m[0], m[1], depth + 1))
    return whole, frozenset(assigned)


def _loops_over_state(fn, call, state: str) -> bool:
    """``call`` sits in ``for k, v in state.items():`` (or ``for k in state:``) and stores key ``k``."""
    for n in fast_walk(fn):
        if isinstance(n, ast.For) and any(x is call for st in n.body for x in fast_walk(st)):
            it = n.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items":
                it = it.func.value
            if isinstance(it, ast.Name) and it.id == state:
                tgt = n.target.elts[0] if isinstance(n.target, ast.Tuple) and n.target.elts else n.target
                return isinstance(tgt, ast.Name) and isinstance(call.args[1], ast.Name) and call.args[1].id == tgt.id
    return False
