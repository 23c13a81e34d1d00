"""Names no code can give: a class that stores computed names after construction (``setattr(self,
name, value)`` in a loader, an ``update(**kw)``) is open, and its later reads are not judged. A
computed name still has to come from somewhere the tree can spell it: a string, a keyword, a
parameter or a store of that attribute. A read of a name that no production file of the tree spells
in any of those ways, and no method of the class assigns, cannot be given by them: gensim 4.1's
``WmdSimilarity.__str__`` read ``self.w2v_model`` (renamed to ``self.wv`` in 4.0), in a class whose
``SaveLoad._load_specials`` restores pickled attributes by name. Reported as a warning: a name the
program reads from a data file (a configuration's keys) is spelled nowhere in the tree either."""
from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..ftypes import Severity
from .astutil import fast_walk, first_param, memo_on
from .calltables import setattr_on
from .severity import is_test_path


def _spellings(attr: str) -> re.Pattern:
    a = re.escape(attr)
    return re.compile(
        r"[\"']%s[\"']"                                  # a string: setattr(obj, "x", ...), a dict key, __slots__
        r"|[(,*]\s*%s\s*=(?!=)"                           # a keyword (f(x=...)), a parameter default
        r"|\.\s*%s\s*(?::[^=\n]+)?(?:[-+*/%%&|^@]|//|\*\*|<<|>>)?=(?!=)"  # a store of the attribute
        r"|\bdef\s+\w+\s*\((?:[^()]|\([^()]*\))*?(?<![\w.])%s\b" % (a, a, a, a))  # a parameter


def spelled_in_tree(index, attr: str) -> bool:
    """Some production file of the tree (test files left out: a test's ``self.x = ...`` stores on
    its own test case) spells ``attr`` as a string, a keyword, a parameter or an attribute store."""
    memo = index.__dict__.setdefault("_spelled", {})
    got = memo.get(attr)
    if got is None:
        pat = _spellings(attr)
        got = memo[attr] = any(pat.search(text) for rel, text in index.naming(attr) if not is_test_path(rel))
    return got


def caller_named(stores) -> bool:
    """Some computed store takes its names and values from the method's caller, as keywords:
    ``for name, v in kwargs.items(): setattr(self, name, v)`` (``initialize(**kw)``), or over a
    mapping parameter's ``.items()`` / ``.keys()``. Those names may come from code outside the tree
    (a library's users), so a name the tree never spells proves nothing there. A list of names a
    caller hands in (gensim's ``_save_specials(..., separately, ...)`` clears attributes the object
    has) is not. ``stores``: (class, methods) pairs."""
    for c, methods in stores:
        for m in methods:
            fn = c.methods.get(m)
            if fn is None:
                return True  # not a method of the tree: its names are unknown
            mappings = {fn.args.kwarg.arg} if fn.args.kwarg is not None else set()
            params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
            names = _stored_names(fn)
            if names & mappings:
                return True
            for node in fast_walk(fn):
                if isinstance(node, ast.For) and any(isinstance(t, ast.Name) and t.id in names
                                                     for t in fast_walk(node.target)):
                    it = node.iter
                    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                            it.func.attr in ("items", "keys") and isinstance(it.func.value, ast.Name) and \
                            it.func.value.id in mappings | params:
                        return True
    return False


def _stored_names(fn) -> set:
    """The local names a method's computed stores use as the attribute name: on the instance, or
    on an instance a classmethod builds (``setattr(result, k, v)``). Once per method (every
    subclass of a dynamic base asks again)."""
    return memo_on(fn, "_pk_stored_names", lambda: _compute_stored_names(fn))


def _compute_stored_names(fn) -> set:
    selfname = first_param(fn) or "self"
    out = set()
    for node in fast_walk(fn):
        if isinstance(node, ast.Call):
            got = setattr_on(node, selfname)
            if got is None and isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) >= 2:
                got = (node.args[1], None)
            if got is not None and isinstance(got[0], ast.Name):
                out.add(got[0].id)
    return out


def unnamed_reads(an, t, assigned_anywhere: dict) -> list:
    """For a class (``t``: its construction trace) judged only on what its construction reads: the
    later reads that would be errors were it closed, whose attribute no method of the MRO assigns
    and the tree never spells, as warnings. Nothing for an open class, or where a computed store
    takes its names from a caller (``caller_named``)."""
    from .dynamic import _computed_stores
    from .injection import _index_for
    f = t.facts
    if f.open or caller_named(_computed_stores(f)):
        return []
    index = _index_for(an.project, t.ci)
    why = f.dynamic or "a computed store"
    out = []
    for x in an._reads_after_construction(t):
        if x.severity != Severity.ERROR or x.attr in assigned_anywhere or spelled_in_tree(index, x.attr):
            continue
        out.append(replace(x, severity=Severity.WARNING,
                           why=f"{x.why}; the class stores computed names ({why}), but no file of the tree "
                               f"spells {x.attr!r} as a string, keyword, parameter or store"))
    return out
