"""Exceptions a context manager decorates on their way out (set BL, clize 5.0.2, 2026).

clize's ``SetErrorContext.__exit__(self, exc_type, exc_val, exc_tb)`` runs ``setattr(exc_val, key,
val)`` for every keyword its constructor was given, when ``isinstance(exc_val, self.exc_type)``
(errors.py:164); the parser raises its errors inside ``with SetArgumentErrorContext(param=p,
ba=self)`` (``SetArgumentErrorContext = partial(SetErrorContext, ArgumentError)``). So
``MissingValue``, which never stores ``param``, has it by the time anyone reads ``message``.

An ``__exit__`` that stores on its exception parameter (``exc_val.x = ...``, ``setattr(exc_val,
"x", ...)``, or a computed ``setattr`` whose names are the keywords of the manager's construction
sites) gives an exception class those names when the class is linked to it: the ``isinstance``
filter of the ``__exit__`` names the class or an ancestor (directly, or through the type a
construction site hands in as its first argument). The errors on such names become warnings that
name the manager; every other name, and every class the filter does not take, stays as judged.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from .astutil import dotted, memo_on
from .demote import demote_named, open_errors
from .model import ClassInfo

_EXIT = re.compile(r"def __exit__\s*\(")


@dataclass(frozen=True)
class Decorator:
    """One ``__exit__`` that stores on the exception it sees."""
    cm: ClassInfo
    rel: str
    line: int
    literal: frozenset          # names stored by name
    computed: bool              # a setattr with a computed name (the construction keywords)
    types: tuple                # the guarding isinstance filters: ClassInfo, the __init__ parameter position, or None


def _isinstance_of(test: ast.expr, exc: str, me: str) -> list:
    """The type filters ``test`` proves when true: ``isinstance(exc, T)``, alone or in an ``and``."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    out = []
    for t in parts:
        if isinstance(t, ast.Call) and dotted(t.func) == "isinstance" and len(t.args) == 2 and \
                isinstance(t.args[0], ast.Name) and t.args[0].id == exc:
            k = t.args[1]
            out.append(f"self:{k.attr}" if isinstance(k, ast.Attribute) and isinstance(k.value, ast.Name)
                       and k.value.id == me else dotted(k))
    return out


def _exit_stores(fn: ast.FunctionDef) -> tuple[frozenset, bool, list]:
    """(names stored by name, whether a computed setattr stores, the isinstance filters that
    guard them) of the stores on the exception parameter that an ``isinstance`` test guards: the
    store sits in the body of ``if isinstance(exc, T)`` (or ``if isinstance(...) and ...``), or
    after ``if not isinstance(exc, T): return``. An unguarded store links no class."""
    params = fn.args.posonlyargs + fn.args.args
    if len(params) < 3:
        return frozenset(), False, []
    me, exc = params[0].arg, params[2].arg
    literal, computed, filters = set(), False, set()

    def visit(body: list, guards: tuple) -> None:
        nonlocal computed
        for st in body:
            if isinstance(st, ast.If):
                pos = _isinstance_of(st.test, exc, me)
                visit(st.body, guards + tuple(pos))
                visit(st.orelse, guards)
                neg = _isinstance_of(st.test.operand, exc, me) if isinstance(st.test, ast.UnaryOp) and \
                    isinstance(st.test.op, ast.Not) else []
                if neg and st.body and isinstance(st.body[-1], (ast.Return, ast.Raise)):
                    guards = guards + tuple(neg)  # `if not isinstance(exc, T): return`: the rest has T
                continue
            if isinstance(st, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
                visit(st.body, guards)
                visit(getattr(st, "orelse", []), guards)
                continue
            if isinstance(st, ast.Try):
                for b in (st.body, *[h.body for h in st.handlers], st.orelse, st.finalbody):
                    visit(b, guards)
                continue
            if not guards:
                continue
            for n in ast.walk(st):
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                                     and t.value.id == exc for t in n.targets):
                    literal.update(t.attr for t in n.targets if isinstance(t, ast.Attribute))
                    filters.update(guards)
                elif isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == exc \
                        and dotted(n.func) in ("setattr", "object.__setattr__") and len(n.args) >= 2:
                    if isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
                        literal.add(n.args[1].value)
                    else:
                        computed = True
                    filters.update(guards)

    visit(fn.body, ())
    return frozenset(literal), computed, sorted(f for f in filters if f)


def _init_position(cm: ClassInfo, attr: str) -> Optional[int]:
    """The position (after ``self``) of the ``__init__`` parameter stored as ``self.<attr>``."""
    init = cm.methods.get("__init__")
    if init is None:
        return None
    params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    for n in ast.walk(init):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in params and any(
                isinstance(t, ast.Attribute) and t.attr == attr for t in n.targets):
            return params.index(n.value.id)
    return None


def _decorators(project, ci: ClassInfo) -> list:
    """Every exception-decorating ``__exit__`` of the tree with its construction sites: [(Decorator,
    [(keywords, positional type names, module, rel, line)])]; once per tree."""
    from .injection import _index_for
    from .madeelsewhere import _module_at, _resolved
    idx = _index_for(project, ci)
    got = idx.__dict__.get("_pk_exc_context")
    if got is not None:
        return got
    found = []
    texts = idx.texts()
    for rel, text in sorted(texts.items()):
        if "__exit__" not in text or not _EXIT.search(text):
            continue
        mod = _module_at(project, idx, rel)
        for c in (mod.classes.values() if mod is not None else ()):
            fn = c.methods.get("__exit__")
            if not isinstance(fn, ast.FunctionDef):
                continue
            literal, computed, filters = _exit_stores(fn)
            if not (literal or computed):
                continue
            types = tuple(_init_position(c, f[5:]) if f and f.startswith("self:") else
                          (_resolved(project, mod, f) if f else None) for f in filters)
            found.append((Decorator(c, mod.rel, fn.lineno, literal, computed, types),
                          _sites(project, idx, texts, c) if computed or any(isinstance(t, int) for t in types) else []))
    got = idx.__dict__["_pk_exc_context"] = found
    return got


def _sites(project, idx, texts: dict, cm: ClassInfo) -> list:
    """(keywords, first positional arguments resolved, rel, line) of each call that constructs ``cm``,
    directly or through a module-level ``Alias = partial(CM, ...)``."""
    from .madeelsewhere import _module_at
    name = cm.qualname.split(".")[-1]
    call = re.compile(rf"\b{re.escape(name)}\b")
    out, aliases = [], {}
    for rel, text in sorted(texts.items()):
        if name not in text or not call.search(text):  # the substring first: a leading \b is slow (fastre.py)
            continue
        tree, mod = idx.parsed(rel), _module_at(project, idx, rel)
        if tree is None or mod is None:
            continue
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            f = dotted(n.func) or ""
            if f.split(".")[-1] == name:
                out.append(_site(project, mod, n, [], []))
            elif f in ("partial", "functools.partial") and n.args and (dotted(n.args[0]) or "").split(".")[-1] == name:
                alias = next((t.id for p in ast.walk(tree) if isinstance(p, ast.Assign) and p.value is n
                              for t in p.targets if isinstance(t, ast.Name)), None)
                if alias:
                    aliases[alias] = (mod, n.args[1:], n.keywords)
    for alias, (amod, args, kws) in aliases.items():
        use = re.compile(rf"\b{re.escape(alias)}\s*\(")
        for rel, text in sorted(texts.items()):
            if alias not in text or not use.search(text):
                continue
            tree, mod = idx.parsed(rel), _module_at(project, idx, rel)
            for n in ast.walk(tree) if tree is not None and mod is not None else ():
                if isinstance(n, ast.Call) and (dotted(n.func) or "").split(".")[-1] == alias:
                    out.append(_site(project, mod, n, [(amod, a) for a in args], kws))
    return out


def _site(project, mod, call: ast.Call, pre: list, pre_kws: list) -> tuple:
    from .madeelsewhere import _resolved
    args = pre + [(mod, a) for a in call.args]
    types = tuple(_resolved(project, m, d) if (d := dotted(a)) else None for m, a in args)
    kws = frozenset(k.arg for k in [*pre_kws, *call.keywords] if k.arg)
    return kws, types, mod.rel, call.lineno


def _given(an, ci: ClassInfo) -> list[tuple[frozenset, str]]:
    mine = {c.key for c in an.facts(ci).classes}
    out = []
    for d, sites in _decorators(an.project, ci):
        where = f"{d.cm.qualname}.__exit__ ({d.rel}:{d.line})"
        named = [t for t in d.types if isinstance(t, ClassInfo)]
        direct = any(t.key in mine for t in named)  # no readable filter: no class is linked
        if d.literal and direct:
            out.append((d.literal, f"{where} sets it on the exception on its way out"))
        for kws, types, rel, line in sites:
            by_site = any(isinstance(p, int) and p < len(types) and isinstance(types[p], ClassInfo)
                          and types[p].key in mine for p in d.types)
            if (direct or by_site) and d.computed and kws:
                out.append((kws, f"{where} sets the keywords of {rel}:{line} on the exception on its way out"))
    return out


def demote_exception_context(an, ci: ClassInfo, findings: list) -> list:
    """Errors on a name an exception-decorating context manager linked to ``ci`` gives become warnings."""
    todo = open_errors(findings)
    if not todo or not any(e.kind == "exception" for e in an.facts(ci).externals):
        return findings
    given = memo_on(ci, "_pk_exc_context_given", lambda: _given(an, ci))
    return demote_named(findings, todo, given) if given else findings
