"""Reads in a method the judged class reaches only through code it replaced (set BQ, session 49).

thermo's ``PRSVMIX`` inherits ``PRSV.a_alpha_and_derivatives_pure``, called in the tree only by
``GCEOS.a_alpha_and_derivatives``, which ``GCEOSMIX`` overrides earlier in the MRO; gseapy's
``Replot`` inherits ``GSEAbase`` helpers that only its sibling classes' ``run`` methods call,
directly or through ``to_df``. Such a method runs on the judged class only if code outside the
tree calls it by name.

``demote_unreached``, for an error read in a method ``m`` of a class of the judged class's MRO:
every class of that MRO is a class of the tree (a library base may call any method by name); ``m``
is no dunder, carries no decorator (``@handles("kind")`` registers it), did not run during
construction, and no method of the MRO looks methods up by a computed name (``getattr(self, "x_" +
k)``, ``dir(self)``); the tree names ``m`` at least once outside its definitions, every such place
being ``<self>.m(...)``, and each of those sits in a method the class does not run: a method its
MRO overrides that nothing reaches through ``super()``, ``Cls.m(self, ...)`` or an alias in the
MRO, or a method of a sibling class that inherits ``m`` (a class with a ``m`` of its own is not a
caller; one where ``self.m`` resolves to nothing, a proxy, is). A caller the class does run counts
only while some caller of its own does (four levels). Any other use keeps the error: ``obj.m()``,
``super().m()``, the bare name (``alias = m``, ``{"k": m}``), the string ``"m"``, a file that does
not parse, a name in more than ``MAX_FILES_NAMING`` files. The error becomes a warning naming the
callers: a user may still call the method.

``reached_elsewhere`` closes the holes of the older rule in afterconstruction.py (a read reached
only through overridden entry points of its own class), which looked at that class's methods
alone: a caller in another class of the MRO that the class runs, ``super()`` or ``Cls.m(self)``
or an alias reaching an overridden entry point, a library hook (``Thread.run``), a computed
``getattr`` keep the error. Calls on other objects (``self.base.quantile(a)``) are still not
counted there: their type is unknown, as that rule always took it.

Known limits: the tree is the judged class's top-level package (a script or another package
beside it that calls ``m`` is not seen), and a method overridden only under a branch the
interpreter never takes (``if sys.version_info < (3,):``) counts as overridden.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import dotted
from .fastre import Bounded, word_boundary
from .demote import open_errors


def _method_at(classes, path: str, line: int):
    """(class, name) of the method of ``classes`` whose body holds ``path:line``."""
    for c in classes:
        if c.module.rel != path:
            continue
        for name, fn in c.methods.items():
            if fn.lineno <= line <= (getattr(fn, "end_lineno", None) or fn.lineno):
                return c, name
    return None


def _uses(idx, name: str, strict: bool = True) -> Optional[list]:
    """(file, class qualname, method) of each ``<self>.name(...)`` call of the tree of index
    ``idx``; None when the tree names ``name`` any other way (once per index and name)."""
    memo = idx.__dict__.setdefault("_pk_unreached_uses", {})
    if (name, strict) not in memo:
        memo[name, strict] = _scan(idx, name, strict)
    return memo[name, strict]


def _explicit(idx, name: str, mro: dict) -> bool:
    """An overridden method ``name`` may still run on the judged class (MRO ``mro``: (file,
    qualname) -> class) through ``super(...).name``, an alias or another non-self spelling in a
    class of that MRO (its files are parsed), through ``Cls.name`` with ``Cls`` the short name of
    one of its classes, or through ``super(Cls, obj).name`` outside a class (both found by pattern
    in every file). ``obj.name`` and ``getattr(obj, "name")`` find the override."""
    prefix = getattr(idx, "prefix", "")
    texts = idx.texts()
    for rel in {r for r, _q in mro}:
        local = rel[len(prefix):] if rel.startswith(prefix) else rel
        if name in texts.get(local, "") and \
                any(k != "name" and (k == "any" or w in mro) for k, w in _file_sites(idx, local, name)):
            return True
    names = tuple(sorted({q.split(".")[-1] for _rel, q in mro}, key=len, reverse=True))
    memo = idx.__dict__.setdefault("_pk_unreached_named", {})
    if (name, names) not in memo:
        memo[name, names] = _named_anywhere(idx.naming(name), name, names)
    return memo[name, names]


def _named_anywhere(texts: list, name: str, names: tuple) -> bool:
    """``\\b(?:<names>|super(...))\\s*\\.\\s*name\\b`` in one of ``texts``: one pattern per
    spelling, each starting with its literal (which the regex engine looks for quickly), the
    leading word boundary checked by hand at every candidate."""
    tail = rf"\s*\.\s*{re.escape(name)}\b"
    pats = [Bounded(re.escape(n) + tail, before=word_boundary) for n in names]
    pats.append(Bounded(r"super\((?:[^()\n]|\([^()\n]*\))*\)" + tail, before=word_boundary))
    return any(pat.search(text) for _rel, text in texts for pat in pats)


def _file_sites(idx, rel: str, name: str) -> list:
    """The sites of ``name`` in file ``rel`` of the index (see ``_sites``), once per file and name."""
    memo = idx.__dict__.setdefault("_pk_unreached_sites", {})
    if (rel, name) not in memo:
        out: list = []
        tree = idx.parsed(rel)
        if tree is not None:
            _sites(tree.body, getattr(idx, "prefix", "") + rel, "", name, out)
        memo[rel, name] = out
    return memo[rel, name]


def _sites(body, rel: str, qual: str, name: str, out: list) -> None:
    for st in body:
        if isinstance(st, ast.ClassDef):
            _sites(st.body, rel, f"{qual}.{st.name}" if qual else st.name, name, out)
            continue
        for n in ast.walk(st):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name and \
                    n.args and isinstance(n.args[0], ast.Name) and n.args[0].id in ("self", "cls") and qual:
                out.append(("other", (rel, qual)))  # ``anything.name(self, ...)``: an unbound call
            elif isinstance(n, ast.Attribute) and n.attr == name:
                v = n.value
                if isinstance(v, ast.Name):
                    out.append(("name", v.id))
                elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super":
                    out.append(("super", (rel, qual)) if qual else ("any", None))  # ``super(Cls, obj)`` anywhere
                elif qual and not isinstance(v, ast.Attribute):
                    out.append(("other", (rel, qual)))
            elif qual and ((isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store))
                           or (isinstance(n, ast.Constant) and n.value == name)):
                out.append(("other", (rel, qual)))  # ``__call__ = name``, ``getattr(super(), "name")``


#: a name in more files than this is too common to prove anything about: the error stays
MAX_FILES_NAMING = 200


def _scan(idx, name: str, strict: bool = True) -> Optional[list]:
    word = re.compile(rf"\b{re.escape(name)}\b")
    out: list = []
    texts = [(rel, text) for rel, text in idx.naming(name) if word.search(text)]
    if len(texts) > MAX_FILES_NAMING:
        return None  # too common to scan (reached_elsewhere then counts no caller, as the older rule did)
    for rel, text in texts:
        tree = idx.parsed(rel)
        if tree is None:
            if strict:
                return None  # a file that does not parse may call it
            continue
        if not _scan_body(tree.body, getattr(idx, "prefix", "") + rel, name, "", None, out, strict):
            return None
    return out


def _scan_body(body, rel: str, name: str, qual: str, method, out: list, strict: bool = True) -> bool:
    """Walk ``body`` (of class ``qual``, inside ``method``: (name, self parameter) or None);
    False on a use of ``name`` that is not a self call."""
    for st in body:
        if isinstance(st, ast.ClassDef) and method is None:
            if strict and not all(_plain(e, name) for e in [*st.bases, *st.keywords, *st.decorator_list]):
                return False
            cq = f"{qual}.{st.name}" if qual else st.name
            if not _scan_class(st, rel, name, cq, out, strict):
                return False
        elif not _plain(st, name, method, rel, qual, out) and strict:
            return False
    return True


def _scan_class(cls: ast.ClassDef, rel: str, name: str, qual: str, out: list, strict: bool = True) -> bool:
    for st in cls.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = st.args.posonlyargs + st.args.args
            me = args[0].arg if args and not any(dotted(d) == "staticmethod" for d in st.decorator_list) else None
            if strict and (not all(_plain(d, name) for d in st.decorator_list) or
                           not all(_plain(d, name) for d in [*st.args.defaults, *st.args.kw_defaults] if d is not None)):
                return False
            for inner in st.body:
                if not _plain(inner, name, (st.name, me), rel, qual, out, strict) and strict:
                    return False
        elif isinstance(st, ast.ClassDef):
            if not _scan_body([st], rel, name, qual, None, out, strict):
                return False
        elif strict and not _plain(st, name):
            return False  # a class-body statement naming it: ``alias = m``, a registry list
    return True


def _plain(node, name: str, method=None, rel: str = "", qual: str = "", out: Optional[list] = None,
           strict: bool = True) -> bool:
    """``node`` names ``name`` only in ``<self>.name(...)`` calls of ``method`` (recorded in
    ``out``) or in definitions; False on any other use: ``obj.name``, the bare name (``alias =
    name``, ``{"k": name}``, ``partialmethod(name)`` in a class body), the string ``"name"``."""
    me = method[1] if method is not None else None
    calls = set()  # ast.walk meets a call before its callee
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name:
            if me and isinstance(n.func.value, ast.Name) and n.func.value.id == me:
                out.append((rel, qual, method[0]))
                calls.add(id(n.func))
        elif not strict:
            continue  # collecting the self calls alone
        elif isinstance(n, ast.Attribute) and n.attr == name:
            if id(n) not in calls:
                return False
        elif isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store):
            return False
        elif isinstance(n, ast.Constant) and n.value == name:
            return False  # getattr(obj, "m"), a hook list
    return True


#: methods a library base calls on its subclasses by name (``Thread.start`` runs ``run``,
#: ``nn.Module.__call__`` runs ``forward``), by the kind of library base
LIBRARY_HOOKS = {"thread": frozenset({"run"}),
                 "module": frozenset({"forward", "extra_repr", "reset_parameters", "_load_from_state_dict",
                                      "_save_to_state_dict", "_apply", "train"})}


def _library_hook(facts, name: str) -> bool:
    """A library base of the MRO defines ``name`` (its source read from the environment) or calls it
    by name as a hook of its kind."""
    from .model import ClassInfo
    for c in facts.linear:
        if isinstance(c, ClassInfo):
            if c.module.external and name in c.methods:
                return True
        elif name in LIBRARY_HOOKS.get(getattr(c, "kind", ""), ()):
            return True
    return False


def reached_elsewhere(model, ci, facts, owner, name: str) -> bool:
    """The tree calls ``name`` other than as ``<self>.name(...)`` from a method of ``owner`` or from
    a method ``ci`` does not run: a method ``ci`` runs (of another class of its MRO) calls it, or
    the tree names it another way (``obj.name(...)``, ``super().name()``, a string, a value). The
    check ``afterconstruction`` adds to its "only overridden callers of the owner" rule, which
    looks at the owner's own methods alone."""
    if _library_hook(facts, name):
        return True
    from .injection import _index_for
    idx = _index_for(model.project, ci)
    mro = {(c.module.rel, c.qualname): c for c in facts.classes}
    if any(_computed_getattr(c) for c in facts.classes) or _explicit(idx, name, mro):
        return True  # any method may run, or super()/Base.name(self)/an alias in the MRO reaches it
    # calls on other objects (``self.model.name(...)``) are not counted: their type is unknown
    # here, as that rule always took it (gluonts' ``self.base.quantile(a)``)
    uses = _uses(idx, name, strict=False) or []
    for rel, qual, caller in uses:
        c = mro.get((rel, qual))
        if c is None:
            if _same_method(model, rel, qual, name, owner) is None:
                return True  # a class without the method calls it on itself (a proxy)
            continue
        r = model.resolve_method(facts.linear, caller)
        if r is not None and r[0] is c:
            if c is not owner:
                return True  # the owner's own live callers: its rule follows their chain
        elif _explicit(idx, caller, mro):
            return True  # an overridden caller that super() or Base.m(self) may still run
    return False


def demote_unreached(model, ci, facts, findings: list, inlined=frozenset()) -> list:
    """Errors read in a method the judged class reaches only through methods it does not run
    become warnings that name those callers (``inlined``: the methods construction ran, whose
    reads stay judged)."""
    todo = open_errors(findings)
    if not todo or facts.unknown_base is not None:
        return findings
    from .model import ClassInfo
    if not all(isinstance(c, ClassInfo) and not c.module.external
               for c in facts.linear if getattr(c, "name", None) != "object"):
        return findings
    from .injection import _index_for
    from dataclasses import replace
    from ..ftypes import Severity
    idx = _index_for(model.project, ci)
    mro = {(c.module.rel, c.qualname): c for c in facts.classes}
    dynamic = any(_computed_getattr(c) for c in facts.classes)
    out = []
    for x in findings:
        why = None
        if id(x) in todo:
            at = _method_at(facts.classes, x.path, x.line)
            if at is not None and not at[1].startswith("__") and f"{at[0].qualname}.{at[1]}" not in inlined \
                    and not at[0].methods[at[1]].decorator_list and not dynamic:
                shown = _unreached(model, facts, mro, at[0], at[1], _uses(idx, at[1]), idx)
                why = _words(at[1], shown) if shown else None
        out.append(replace(x, severity=Severity.WARNING, why=f"{x.why}; {why}") if why else x)
    return out


def _unreached(model, facts, mro: dict, owner, name: str, uses: Optional[list], idx,
               seen: frozenset = frozenset()) -> Optional[list]:
    """Why no method the class runs reaches ``name`` (the entry points that do), or None. A caller
    the class runs counts only while some caller of its own is one (gseapy's ``_plotting``, called
    by ``to_df``, which only the sibling classes' ``run`` calls); four levels at most."""
    if not uses:
        return None  # never called in the tree (a user may), or named another way
    shown: list = []
    for rel, qual, caller in uses:
        c = mro.get((rel, qual))
        if c is None:
            same = _same_method(model, rel, qual, name, owner)
            if same is None:
                return None  # a class without the method calls it on itself: a proxy, a borrowed function
            if not same:
                continue  # another class's own method of that name (gluoncv's many ``validate``s)
        if c is not None:
            r = model.resolve_method(facts.linear, caller)
            if r is not None and r[0] is c:
                if caller == name or caller in seen or len(seen) >= 3 or caller.startswith("__"):
                    return None  # a method the class runs calls it
                deeper = _unreached(model, facts, mro, c, caller, _uses(idx, caller), idx, seen | {name})
                if not deeper:
                    return None  # that caller is reached (or the class's public entry point)
                shown.extend(w for w in deeper if w not in shown)
                continue
            if _explicit(idx, caller, mro):
                return None  # overridden, but super() or Base.m(self) may run it
        where = f"{qual}.{caller}" + (" (overridden)" if c is not None else "")
        if where not in shown:
            shown.append(where)
    return shown


def _same_method(model, rel: str, qual: str, name: str, owner) -> Optional[bool]:
    """``self.<name>`` in class ``qual`` of file ``rel`` (outside the judged class's MRO) resolves
    to ``owner``'s method (a sibling that inherits it: True) or to a method of its own (False).
    None where it resolves to nothing the tree shows: a ``__getattr__`` proxy, a function borrowed
    into another class (``energy = Helper.energy``), a metaclass's ``cls.name(obj)``."""
    from .model import ClassInfo
    from .project import module_name_for
    mod = model.project.module(module_name_for(rel), external=False)
    k = mod.classes.get(qual) if mod is not None else None
    if not isinstance(k, ClassInfo):
        return None
    r = model.resolve_method(model.facts(k).linear, name)
    if r is None:
        return None
    return r[0].key == owner.key


def _computed_getattr(c) -> bool:
    """A method of ``c`` looks a method up on its instance by a computed name
    (``getattr(self, "check_" + n)``, ``for n in dir(self)``): any method may run."""
    from .astutil import memo_on

    def scan() -> bool:
        for fn in c.methods.values():
            args = fn.args.posonlyargs + fn.args.args
            me = args[0].arg if args else None
            for n in ast.walk(fn):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "dir") and \
                        n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == me and \
                        (n.func.id == "dir" or len(n.args) < 2 or not isinstance(n.args[1], ast.Constant)):
                    return True
        return False
    return memo_on(c, "_pk_computed_getattr", scan)


def _words(name: str, shown: list) -> str:
    return (f"{name}() is called only from methods this class does not run ({', '.join(shown[:3])}"
            f"{', ...' if len(shown) > 3 else ''}), so only a caller outside the tree reaches the read")
