"""Instances a class never builds itself: the object exists before it has the class.

Three ways of making them, two from set BJ (guppy3, 2026) and one from set BK (feedparser):

- **Re-classing.** ``UntypedDescription.__init__`` stores ``env``, ``mod``, ``tgt`` and ``src``,
  then ``resolve_type`` does ``self.__class__ = dc`` with ``dc`` one of ``Repeat``, ``Seq``,
  ``Mapping``, ``Package`` … (gsl/Main.py:246). No code calls ``Repeat(...)``: every ``Repeat``
  was an ``UntypedDescription`` first, and holds what its ``__init__`` stored.
- **A class made at run time from a local base.** ``class C(Mixin, self.ArgAtomFamily)`` inside a
  function whose ``Mixin`` is a parameter (heapy/UniSet.py:2193), ``class r(c, self.RelationBase)``
  with ``c`` a local (heapy/Path.py:446): the classes handed in as ``Mixin`` or ``c`` are never built
  by name; their instances are instances of ``C`` and hold what the host (``ArgAtomFamily``,
  ``RelationBase``) gives them.
- **A class made by ``type()`` from several bases.** ``StrictFeedParser = type('StrictFeedParser',
  (_StrictFeedParser, _FeedParserMixin, ContentHandler, object), {})`` (feedparser/api.py:145): the
  methods of ``_StrictFeedParser`` read what ``_FeedParserMixin`` gives.

A class no code of the tree calls by name has its errors on an attribute such a source gives (the
re-classing class's MRO stores it on ``self``; the partner's or host's MRO stores it, defines it or
binds it in a class body) turned into warnings that name the source, when the source is linked to
the class: ``self.__class__ = Name`` names it or an ancestor, or a computed right-hand side sits in a
module that hands the class on as a value (guppy's ``description_classes`` table); the ``type()``
call lists the class itself (resolved, not by name); the function that makes a class from a local
base is in a tree that passes the class to some call. An attribute no linked source gives stays an
error, and so does the field bug next to an unrelated re-classing class or run-time mixer
(tests/test_analysis_precision_set_bj.py).
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import dotted, memo_on
from .fastre import Bounded, indented_line_start
from .demote import demote_named, open_errors
from .model import ClassInfo

_CLASS_STORE = re.compile(r"\bself\.__class__\s*=(?!=)")
_LOCAL_CLASS = Bounded(r"class \w+\(", before=indented_line_start)  # ^[ \t]+class \w+\( (multi-line)


def _reclassing(mod) -> list[tuple[str, int, Optional[str]]]:
    """(class qualname, line, the class the right-hand side names or None when computed) of the
    methods of ``mod`` that store ``self.__class__ = <expr>``."""
    def compute() -> list:
        out = []
        if not _CLASS_STORE.search(mod.source):
            return out
        for c in mod.classes.values():
            for fn in c.methods.values():
                params = fn.args.posonlyargs + fn.args.args
                me = params[0].arg if params else None
                for n in ast.walk(fn):
                    if isinstance(n, ast.Assign) and any(
                            isinstance(t, ast.Attribute) and t.attr == "__class__" and isinstance(t.value, ast.Name)
                            and t.value.id == me for t in n.targets):
                        named = n.value.id if isinstance(n.value, ast.Name) and n.value.id in mod.classes else \
                            n.value.attr if isinstance(n.value, ast.Attribute) and n.value.attr in mod.classes else None
                        out.append((c.qualname, n.lineno, named))
        return out
    return memo_on(mod, "_pk_reclassing", compute)


def _local_hosts(tree: ast.AST) -> list[tuple[str, int]]:
    """(host base, line) of the class statements inside functions that have a base bound in the
    function (a parameter or a local): the host is each other base, by its last name."""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        classes = [st for st in _own_statements(fn) if isinstance(st, ast.ClassDef)]
        if not classes:
            continue
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | \
            {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for st in classes:
            if any(isinstance(b, ast.Name) and b.id in local for b in st.bases):
                for b in st.bases:
                    if not (isinstance(b, ast.Name) and b.id in local):
                        last = (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", None))
                        if last:
                            out.append((last, st.lineno))
    return out


def _own_statements(fn):
    """The nodes of ``fn``'s body, not those of the functions nested in it (walked on their own)."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


def _module_at(project, idx, rel: str):
    """The project's module of the index's file ``rel``."""
    from .project import module_name_for
    return project.module(module_name_for(getattr(idx, "prefix", "") + rel), external=False)


def _resolved(project, mod, name: str) -> Optional[ClassInfo]:
    got = mod.classes.get(name) if mod is not None else None
    if not isinstance(got, ClassInfo) and mod is not None:
        got = project.resolve_class(mod, name)
    return got if isinstance(got, ClassInfo) else None


def _tree_sources(project, ci: ClassInfo) -> tuple[list, list]:
    """Once per tree: ([(host ClassInfo, module rel, line)] of the classes made at run time from a
    local base, [(bases as ClassInfo or None, module rel, line)] of the ``type(name, (A, B, ...),
    ns)`` calls of two or more bases)."""
    from .injection import _index_for
    from .treeclasses import _TYPE_FACTORY, _is_type_call
    idx = _index_for(project, ci)
    got = idx.__dict__.get("_pk_made_elsewhere")
    if got is not None:
        return got
    hosts, calls = [], []
    for rel, text in sorted(idx.texts().items()):
        local = bool(_LOCAL_CLASS.search(text))
        typed = "type" in text and bool(_TYPE_FACTORY.search(text))
        if not (local or typed):
            continue
        tree, mod = idx.parsed(rel), _module_at(project, idx, rel)
        if tree is None or mod is None:
            continue
        for host, line in _local_hosts(tree) if local else ():
            h = _resolved(project, mod, host)
            if h is not None:
                hosts.append((h, mod.rel, line))
        for n in ast.walk(tree) if typed else ():
            if isinstance(n, ast.Call) and len(n.args) == 3 and _is_type_call(n.func) and \
                    isinstance(n.args[1], ast.Tuple) and len(n.args[1].elts) >= 2:
                bases = [_resolved(project, mod, d) if (d := dotted(b)) else None for b in n.args[1].elts]
                calls.append((bases, mod.rel, n.lineno))
    got = idx.__dict__["_pk_made_elsewhere"] = (hosts, calls)
    return got


def _passed_to_a_call(project, ci: ClassInfo) -> bool:
    """``ci``'s name is an argument of some call in the tree (``self.family(EqualsFamily)``)."""
    from .injection import _index_for
    name = ci.qualname.split(".")[-1]
    arg = re.compile(rf"[(,]\s*(?:\w+\.)*{re.escape(name)}\s*[,)]")
    return bool(arg.search(ci.module.source)) or \
        any(arg.search(text) for _r, text in _index_for(project, ci).naming(name))


def _given(an, host: ClassInfo) -> frozenset:
    """Every name ``host``'s MRO gives its instances (stores, methods, class-level names, fields)."""
    from .scan import ensure_scanned
    def compute() -> frozenset:
        hf = an.facts(host)
        names = set(hf.class_level) | set(hf.provided) | set(hf.fields)
        for c in hf.classes:
            names |= set(ensure_scanned(c).assigned_in) | set(c.methods)
        return frozenset(names)
    return memo_on(host, "_pk_given_names", compute)


def _sources(an, ci: ClassInfo) -> list[tuple[frozenset, str]]:
    """(the names a source gives, the source in words) for every source linked to ``ci``; once per class."""
    from .mixins import _handed_as_value, value_use
    from .scan import ensure_scanned
    mine = {c.key: c for c in an.facts(ci).classes}
    out = []
    handed = None
    for qual, line, named in _reclassing(ci.module):
        src = ci.module.classes.get(qual)
        if src is None or src.key in mine:
            continue
        if named is not None:
            linked = any(c.qualname == named for c in mine.values())
        else:
            if handed is None:  # ci or a subclass is a value in the module (a table of classes)
                handed = any(value_use(ci.module.source, k.qualname.split(".")[-1])
                             for k in [ci, *an._descendants(ci)])
            linked = handed
        if linked:
            stored = frozenset().union(*(set(ensure_scanned(c).assigned_in) for c in an.facts(src).classes))
            out.append((stored, f"{qual} re-classes its instances (self.__class__ = ..., {ci.module.rel}:{line}) and stores it"))
    hosts, calls = _tree_sources(an.project, ci)
    for bases, rel, line in calls:
        if any(b is not None and b.key == ci.key for b in bases):
            for b in bases:
                if b is not None and b.key not in mine:
                    out.append((_given(an, b), f"type() combines it with {b.qualname} ({rel}:{line}), which gives it"))
    if hosts and _passed_to_a_call(an.project, ci) and _handed_as_value(an.project, ci):
        for h, rel, line in hosts:
            if h.key not in mine:
                out.append((_given(an, h), f"a class made at run time from a local base and {h.qualname} "
                                           f"({rel}:{line}) gives it"))
    return out


def demote_made_elsewhere(an, ci: ClassInfo, findings: list) -> list:
    """Errors of a class no code of the tree builds by name whose attribute a linked way of making
    its instances gives (above) become warnings that say which."""
    from .mixins import built_in_tree
    todo = open_errors(findings)
    if not todo or built_in_tree(an, ci):
        return findings
    sources = memo_on(ci, "_pk_made_elsewhere_sources", lambda: _sources(an, ci))
    return demote_named(findings, todo, sources, f"no code in view builds {ci.qualname} by name, and ") \
        if sources else findings
