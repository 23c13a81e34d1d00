"""What a test of the instance's own attributes says about their presence: the attributes a guard
vouches for (``hasattr(self, "x")``, ``getattr(self, "x", None)``, ``isinstance(getattr(self, "x",
None), T)``), and the truth of ``hasattr(self, "x")`` during construction, when nothing but the
class's own methods can have stored ``x``."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import dotted
from .conditions import _is_self, conjuncts, split_test


def implied_by_exclusion(conds, selfname: str, fn: Optional[ast.AST] = None) -> set[str]:
    """Attributes a read's facts imply present through an early exit: ``if partial and not
    hasattr(self, "m"): raise`` leaves the fact ``partial and not hasattr(...)`` false, and a read
    under ``partial`` (NeMo's ``unfreeze(partial=True)``, vendored by vllm-omni) then has ``m``: of a
    false conjunction, the one operand the other facts do not settle as true is false. With ``fn``
    (the function holding the read), nothing is inferred from a conjunction naming a local the
    function rebinds or a name it also reads on the instance (facts spell ``self.partial`` as
    ``partial``), nor for an attribute it deletes."""
    from .conditions import _key_expr
    facts = [(k, p) for k, p in conds if isinstance(k, str)]
    if not any(not p and " and " in k for k, p in facts):
        return set()
    known = {(k, p) for k, p in facts}
    unsafe = _unsafe_names(fn, selfname) if fn is not None else (frozenset(), frozenset())
    out: set[str] = set()
    for key, pol in facts:
        if pol or " and " not in key:
            continue
        node = _key_expr(key)
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)):
            continue
        if {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & unsafe[0]:
            continue
        rest = []
        for v in node.values:
            inner, p = split_test(v)
            if (ast.unparse(inner), p) not in known:
                rest.append(v)
        if len(rest) == 1:
            out |= implied_attrs(rest[0], False, selfname) - unsafe[1]
    return out


def _unsafe_names(fn: ast.AST, selfname: str) -> tuple[frozenset, frozenset]:
    """(names a conjunction may not rely on, attributes a deletion may take away) for ``fn``:
    locals it rebinds and names it reads on the instance; attributes it deletes."""
    def compute():
        rebound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        on_self = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                   and n.value.id == selfname}
        deleted = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Del)}
        deleted |= {n.args[1].value for n in ast.walk(fn) if isinstance(n, ast.Call) and dotted(n.func) == "delattr"
                    and len(n.args) == 2 and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)}
        return frozenset(rebound | on_self), frozenset(deleted)
    got = getattr(fn, "_pk_exclusion_unsafe", None)
    if got is None:
        got = compute()
        fn._pk_exclusion_unsafe = got  # type: ignore[attr-defined]
    return got


def implied_attrs(test: ast.expr, pol: bool, selfname: str) -> set[str]:
    """Attributes known to exist when ``test`` is ``pol``: hasattr(self, "x"), getattr(self, "x", d) ..."""
    out: set[str] = set()
    for node, p in conjuncts(test, pol):
        if isinstance(node, ast.Call):
            f = dotted(node.func)
            if f == "hasattr" and len(node.args) == 2 and _is_self(node.args[0], selfname) and p:
                k = node.args[1]
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.add(k.value)
            if f == "getattr" and len(node.args) == 3 and _is_self(node.args[0], selfname) and p:
                k = node.args[1]
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.add(k.value)  # truthy => it was found (or the default was truthy)
            if p and (k := _typed_getattr(node, f, selfname)):
                out.add(k)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Is) and not p:
            # getattr(self, "x", None) is None  is False  => x exists
            left = node.left
            if isinstance(left, ast.Call) and dotted(left.func) == "getattr" and len(left.args) == 3 \
                    and _is_self(left.args[0], selfname) and isinstance(left.args[1], ast.Constant):
                out.add(str(left.args[1].value))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In) and p:
            # "x" in self.__dict__ / vars(self)
            if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                r = dotted(node.comparators[0]) or ""
                if r == f"{selfname}.__dict__" or (isinstance(node.comparators[0], ast.Call) and r == "vars"):
                    out.add(node.left.value)
    return out


_NONE_TYPES = {"object", "NoneType", "types.NoneType", "type"}


def _typed_getattr(node: ast.Call, f: str, selfname: str) -> Optional[str]:
    """``isinstance(getattr(self, "x", None), T)`` (T not None's type) or
    ``callable(getattr(self, "x", None))``: true only when ``x`` was found, since the default fails
    the test (aider's ``RepoMap.tags_cache_error``)."""
    if f not in ("isinstance", "callable") or not node.args or node.keywords:
        return None
    g = node.args[0]
    if not (isinstance(g, ast.Call) and dotted(g.func) == "getattr" and len(g.args) == 3 and not g.keywords
            and _is_self(g.args[0], selfname) and isinstance(g.args[1], ast.Constant)
            and isinstance(g.args[1].value, str)
            and isinstance(g.args[2], ast.Constant) and g.args[2].value is None):
        return None
    if f == "isinstance":
        if len(node.args) != 2:
            return None
        t = node.args[1]
        types = t.elts if isinstance(t, ast.Tuple) else [t]
        if any(isinstance(e, ast.Constant) or (dotted(e) or "?") in _NONE_TYPES or
               (isinstance(e, ast.Call) and dotted(e.func) == "type") for e in types) or \
                not all(dotted(e) for e in types):
            return None
    elif len(node.args) != 1:
        return None
    return g.args[1].value


def _hasattr_self(node: ast.expr, selfname: str) -> Optional[str]:
    """``x`` of ``hasattr(self, "x")``, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr" and \
            len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == selfname and \
            isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return node.args[1].value
    return None


def _hasattr_any(node: ast.expr, selfname: str) -> Optional[list]:
    """The names of a test true when the instance has any of them: ``hasattr(self, "x")``, an
    ``or`` of such tests, or ``any(hasattr(self, f) for f in ["a", "b"])`` over a literal list
    (num2words' ``Num2Word_Base.__init__`` builds its cards only for languages that define one of
    ``high_numwords``, ``mid_numwords``, ``low_numwords``); else None."""
    one = _hasattr_self(node, selfname)
    if one is not None:
        return [one]
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        names = [_hasattr_self(v, selfname) for v in node.values]
        return names if all(n is not None for n in names) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "any" and \
            len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
        g = node.args[0]
        if len(g.generators) != 1 or g.generators[0].ifs or g.generators[0].is_async:
            return None
        gen, elt = g.generators[0], g.elt
        if not (isinstance(gen.target, ast.Name) and isinstance(gen.iter, (ast.List, ast.Tuple)) and
                all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in gen.iter.elts)):
            return None
        if isinstance(elt, ast.Call) and isinstance(elt.func, ast.Name) and elt.func.id == "hasattr" and \
                len(elt.args) == 2 and isinstance(elt.args[0], ast.Name) and elt.args[0].id == selfname and \
                isinstance(elt.args[1], ast.Name) and elt.args[1].id == gen.target.id:
            return [e.value for e in gen.iter.elts]
    return None


def absent_attr_truth(test: ast.expr, selfname: str, never_present, seen) -> Optional[bool]:
    """The truth of ``hasattr(self, "x")`` (or its negation, or a test of several names,
    :func:`_hasattr_any`) when nothing can give the instance ``x``: no class attribute, field or
    library base provides it, no method of the MRO and no code of the tree stores it
    (``never_present`` answers True), and construction has not stored it so far (``seen``); or when
    a class attribute always gives it (``never_present`` answers None). scapy's
    ``_AEADCipher.__init__`` tests ``hasattr(self, "pc_cls")``, which only some ``Cipher_*``
    subclasses define."""
    node, pol = split_test(test)
    names = _hasattr_any(node, selfname)
    if names is not None:
        known = [never_present(n) for n in names]  # True: never there; False: may be; None: always there
        if any(k is None for k in known):
            return pol
        if all(k and n not in seen for n, k in zip(names, known)):
            return not pol
    return None


def unstored_attr_truth(test: ast.expr, selfname: str, own_only, seen, states) -> Optional[bool]:
    """The truth of ``hasattr(self, "x")`` (or its negation, or a test of several names) during
    construction when only the class's own methods store ``x`` (``own_only``) and no path has stored
    it yet: the instance is fresh, so nothing else can have. quimb's ``D2BP.__init__`` calls a
    setter helper that tests ``hasattr(self, "sweeper")`` before it builds the sweeper, to skip work
    the end of ``__init__`` does anyway."""
    node, pol = split_test(test)
    names = _hasattr_any(node, selfname)
    if names is not None and all(n not in seen and not any(n in x.assigned for x in states) and own_only(n)
                                 for n in names):
        return not pol
    return None


def presence_oracle(project, ci, f):
    """name -> True when no class attribute, field, provided name, assignment in the MRO or store
    anywhere in the tree can give ``ci``'s instances the attribute, None when a class attribute
    always does, False otherwise (memoised per name)."""
    from .injection import _index_for
    memo: dict[str, bool] = {}
    idx = _index_for(project, ci)

    def absent(name: str):
        if name in memo:
            return memo[name]
        if name in f.class_level:  # slots that hide a class value are not in it (slot_shadowed)
            got = None  # a class attribute: always there
        else:
            got = not (name in f.provided or name in f.fields or any(name in c.assigned_in for c in f.classes)
                       or any(p.match(name) for p in f.dyn_patterns) or bool(idx.files_storing(name)))
        memo[name] = got
        return got

    def own_only(name: str) -> bool:
        """Only a method of the MRO stores it (on the instance): no class attribute, field,
        provided name, computed store or store from another object of the tree."""
        return name not in f.class_level and not (
            name in f.provided or name in f.fields or any(p.match(name) for p in f.dyn_patterns)
            or bool(idx.files_storing(name)))
    absent.own_only = own_only
    return absent


def fresh_presence_oracle(base, computed_ran):
    """:func:`presence_oracle` for a class with computed stores (``setattr(self, k, v)``,
    ``self.__dict__.update(kw)``), during construction and only until one of them runs
    (``computed_ran()``): until then the instance holds what the walk stored and nothing else.
    sfepy's ``ETermBase.__init__`` runs ``Term.__init__``, which never runs ``Struct.__init__``
    (its ``__dict__.update``), then ``set_backend``, whose ``hasattr(self, 'backend') and ... and
    layout == self.layout`` is false on the fresh instance. It never says a name is absent for
    good (a method summary may be reused after a computed store ran); only the construction-time
    ``hasattr`` test (unstored_attr_truth, never while summarising) consults it."""
    def absent(name: str):
        return False

    def own_only(name: str) -> bool:
        return not computed_ran() and base.own_only(name)
    absent.own_only = own_only
    return absent


def may_drop_attributes(classes) -> bool:
    """A class of ``classes`` can take an attribute away where the walk does not follow it: its
    own ``__setattr__``, or a method touching ``__dict__`` / ``__delattr__`` / ``delattr`` (a
    ``self.__dict__.pop(name)`` helper): ``not hasattr(self, "g")`` may then hold after a store."""
    def compute(c) -> bool:
        if "__setattr__" in c.methods:
            return True
        for fn in c.methods.values():
            for n in ast.walk(fn):
                if isinstance(n, ast.Attribute) and n.attr in ("__dict__", "__delattr__"):
                    return True
                if isinstance(n, ast.Call) and dotted(n.func) == "delattr":
                    return True
        return False
    from .astutil import memo_on
    return any(memo_on(c, "_pk_may_drop", lambda c=c: compute(c)) for c in classes if hasattr(c, "methods"))
