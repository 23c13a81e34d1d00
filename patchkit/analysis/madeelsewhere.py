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

A class no code of the tree calls by name, in a tree that makes instances these ways, has its
errors on an attribute that such a source gives (the re-classing class's MRO stores it on ``self``;
the host's MRO stores it, defines it or binds it in a class body) turned into warnings that name
the source. An attribute no such source gives stays an error: the field bug's attribute, stored in
the wrong class of a tree that re-classes nothing, is untouched (tests/test_analysis_precision_set_bj.py).
"""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Optional

from .astutil import memo_on
from .model import ClassInfo

_CLASS_STORE = re.compile(r"\bself\.__class__\s*=(?!=)")
_LOCAL_CLASS = re.compile(r"^[ \t]+class \w+\(", re.M)


def _reclassing(mod) -> list[tuple[str, int]]:
    """(class qualname, line) of the methods of ``mod`` that store ``self.__class__ = <expr>``."""
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
                        out.append((c.qualname, n.lineno))
        return out
    return memo_on(mod, "_pk_reclassing", compute)


def _local_hosts(tree: ast.AST) -> list[tuple[str, int]]:
    """(host base, line) of the class statements inside functions that have a base bound in the
    function (a parameter or a local): the host is each other base, by its last name."""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | \
            {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for st in ast.walk(fn):
            if not isinstance(st, ast.ClassDef):
                continue
            if any(isinstance(b, ast.Name) and b.id in local for b in st.bases):
                for b in st.bases:
                    if not (isinstance(b, ast.Name) and b.id in local):
                        last = (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", None))
                        if last:
                            out.append((last, st.lineno))
    return out


def _tree_hosts(project, ci: ClassInfo) -> list[tuple[str, str, int]]:
    """(host name, file, line) of every class made at run time from a local base in ``ci``'s tree."""
    from .injection import _index_for
    idx = _index_for(project, ci)
    got = idx.__dict__.get("_pk_local_hosts")
    if got is None:
        got = idx.__dict__["_pk_local_hosts"] = []
        texts = dict(idx.texts())
        texts.setdefault(ci.module.rel, ci.module.source)
        for rel, text in texts.items():
            if _LOCAL_CLASS.search(text):
                tree = ci.module.tree if rel == ci.module.rel else idx.parsed(rel)
                if tree is not None:
                    got.extend((h, rel, line) for h, line in _local_hosts(tree))
    return got


def _type_hosts(project, ci: ClassInfo) -> list[tuple[str, str, int]]:
    """(other base, file, line) of every ``type(name, (..., <ci>, ...), ns)`` call of ``ci``'s tree
    with two or more bases (feedparser's ``StrictFeedParser = type('StrictFeedParser',
    (_StrictFeedParser, _FeedParserMixin, ContentHandler, object), {})``, in another module than
    the class)."""
    from .injection import _index_for
    from .treeclasses import _TYPE_FACTORY, _is_type_call
    idx = _index_for(project, ci)
    calls = idx.__dict__.get("_pk_type_bases")
    if calls is None:
        calls = idx.__dict__["_pk_type_bases"] = []
        for rel, text in sorted(idx.texts().items()):
            if "type" not in text or not _TYPE_FACTORY.search(text):
                continue
            tree = idx.parsed(rel)
            for n in ast.walk(tree) if tree is not None else ():
                if isinstance(n, ast.Call) and len(n.args) == 3 and _is_type_call(n.func) and \
                        isinstance(n.args[1], ast.Tuple) and len(n.args[1].elts) >= 2:
                    names = [(b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) for b in n.args[1].elts]
                    calls.append((names, rel, n.lineno))
    short = ci.qualname.split(".")[-1]
    return [(b, rel, line) for names, rel, line in calls if short in names for b in names
            if b and b != short and b != "object"]


def _module_of(project, ci: ClassInfo, rel: str):
    """The module of the tree file ``rel`` (relative to the folder ``ci``'s tree index reads)."""
    from .injection import _index_for
    from .project import module_name_for
    if rel == ci.module.rel:
        return ci.module
    idx = _index_for(project, ci)
    prefix = ""
    if idx.root is not None and project.root is not None and idx.root != project.root:
        try:
            prefix = idx.root.relative_to(project.root).as_posix()
        except ValueError:
            return None
    return project.module(module_name_for(f"{prefix}/{rel}" if prefix else rel), external=False)


def _gives(an, host: ClassInfo, attr: str) -> bool:
    from .scan import ensure_scanned
    hf = an.facts(host)
    return attr in hf.class_level or attr in hf.provided or attr in hf.fields or \
        any(attr in ensure_scanned(c).assigned_in or attr in c.methods for c in hf.classes)


def _source(an, ci: ClassInfo, attr: str) -> Optional[str]:
    """What makes instances of ``ci`` elsewhere and gives them ``attr``, in words, or None."""
    from .scan import ensure_scanned
    mine = {c.key for c in an.facts(ci).classes}
    for qual, line in _reclassing(ci.module):
        src = ci.module.classes.get(qual)
        if src is None or src.key in mine:
            continue
        if any(attr in ensure_scanned(c).assigned_in for c in an.facts(src).classes):
            return f"{qual} re-classes its instances (self.__class__ = ..., {ci.module.rel}:{line}) and stores it"
    for host, rel, line in _type_hosts(an.project, ci):
        mod = _module_of(an.project, ci, rel)
        target = an.project.resolve_class(mod, host) if mod is not None else None
        if isinstance(target, ClassInfo) and target.key not in mine and _gives(an, target, attr):
            return f"type() combines it with {host} ({rel}:{line}), which gives it"
    for host, rel, line in _tree_hosts(an.project, ci):
        mod = _module_of(an.project, ci, rel)
        target = mod.classes.get(host) if mod is not None else None
        if not isinstance(target, ClassInfo) and mod is not None:
            target = an.project.resolve_class(mod, host)
        if isinstance(target, ClassInfo) and target.key not in mine and _gives(an, target, attr):
            return f"a class made at run time from a local base and {host} ({rel}:{line}) gives it"
    return None


def demote_made_elsewhere(an, ci: ClassInfo, findings: list) -> list:
    """Errors of a class no code of the tree builds by name whose attribute another way of making
    its instances gives (above) become warnings that say which."""
    from ..ftypes import Severity
    from .mixins import built_in_tree
    todo = [x for x in findings if x.severity == Severity.ERROR and x.code in ("PK001", "PK002", "PK003") and x.attr]
    if not todo or built_in_tree(an, ci):
        return findings
    out = []
    for x in findings:
        why = _source(an, ci, x.attr) if x in todo else None
        out.append(replace(x, severity=Severity.WARNING, why=f"{x.why}; no code in view builds {ci.qualname} "
                           f"by name, and {why}") if why else x)
    return out
