"""Stores of computed names that still spell known names, for the owner-injection index
(injection.py). Two shapes:

* a setter helper: a top-level function of a module that does ``setattr(obj, name, v)`` with two
  of its positional parameters. weasyprint 70.0's ``layout/percent.py`` has ``def
  resolve_one_percentage(box, property_name, refer_to): ... setattr(box, property_name, v)`` and
  calls it as ``resolve_one_percentage(box, 'margin_left', cb_width)``: each call of the same
  module is a store of ``margin_left`` on ``box``;
* a loop over string constants whose body stores an f-string of the loop variable: ``for side in
  ('top', ...): prop = f'border_{side}_width'; setattr(box, prop, ...)``.

Only a bulk setter counts (``BULK`` names or more on one receiver in one function): a single
``set_option(args, 'verbose', True)`` says nothing about which class the receiver is."""
from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from .astutil import dotted, memo_on, own_nodes
from .localconsts import name_stores

#: distinct names one function must store this way on one receiver for them to count
BULK = 3


def setter_helpers(tree: ast.Module) -> dict[str, tuple[int, int, tuple[str, ...]]]:
    """Top-level function name -> (index of the object parameter, index of the name parameter,
    positional parameter names) for each function whose own code calls ``setattr(obj, name, ...)``
    on two of its positional parameters, neither rebound, and never asks ``hasattr(obj, name)``
    (a helper that only updates what exists creates nothing)."""
    out: dict[str, tuple[int, int, tuple[str, ...]]] = {}
    for fn in tree.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = tuple(a.arg for a in fn.args.posonlyargs + fn.args.args)
        calls = [n for n in own_nodes(fn) if isinstance(n, ast.Call) and dotted(n.func) in ("setattr", "hasattr")]
        pairs = [(n.args[0].id, n.args[1].id) for n in calls if dotted(n.func) == "setattr" and len(n.args) >= 3 and
                 all(isinstance(a, ast.Name) for a in n.args[:2]) and n.args[0].id != n.args[1].id and
                 n.args[0].id in params and n.args[1].id in params]
        if not pairs or any(dotted(n.func) == "hasattr" for n in calls):
            continue  # no such store, or a ``hasattr`` test: a helper that only updates what exists
        stored = name_stores(fn)[0]
        obj, name = pairs[0]
        if obj not in stored and name not in stored:
            out[fn.name] = (params.index(obj), params.index(name), params)
    return out


def helper_store(n: ast.AST, helpers: dict, caller: ast.AST) -> Optional[tuple[str, ast.expr]]:
    """(attribute, receiver) when ``n``, in function ``caller``, calls a setter helper of the
    module (not a parameter or local of ``caller`` that shadows its name) with a string constant
    as the name."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers):
        return None
    args = getattr(caller, "args", None)
    if args is not None and n.func.id in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} or \
            n.func.id in name_stores(caller)[0]:
        return None
    oi, ni, params = helpers[n.func.id]
    given = dict(zip(params, n.args)) if not any(isinstance(a, ast.Starred) for a in n.args) else {}
    given.update({k.arg: k.value for k in n.keywords if k.arg})
    recv, name = given.get(params[oi]), given.get(params[ni])
    if recv is not None and isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier():
        return name.value, recv
    return None


def looped_stores(fn: ast.AST) -> tuple[tuple[str, ast.expr, int], ...]:
    """``_looped_stores(fn)``, kept on the function: the injection index asks once to index the
    names (``files_storing``) and once for the stores (``_stores``)."""
    return memo_on(fn, "_pk_looped_stores", lambda: tuple(_looped_stores(fn)))


def _looped_stores(fn: ast.AST) -> Iterator[tuple[str, ast.expr, int]]:
    """(attribute, receiver, line) for each ``setattr(obj, key, v)`` in ``fn``'s own code inside
    ``for x in <string constants>:`` whose key is an f-string of ``x`` (directly, or through a
    local bound once in the whole function, inside the loop), with no ``continue`` or ``break``
    of the loop before it and ``x`` not rebound in the loop's body."""
    stores = None
    for loop in own_nodes(fn):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and
                isinstance(loop.iter, (ast.Tuple, ast.List)) and loop.iter.elts and
                all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in loop.iter.elts)):
            continue
        stores = name_stores(fn)[0] if stores is None else stores
        var, values = loop.target.id, [e.value for e in loop.iter.elts]
        body = list(own_nodes(loop.body))
        inside = {id(n) for n in body}
        if (stores.get(var, set()) - {id(loop.target)}) & inside:
            continue  # the loop variable is rebound: its values are no longer the listed ones
        exits = [n.lineno for n in body if isinstance(n, (ast.Continue, ast.Break))]
        bound = {n.targets[0].id: n.value for n in body if isinstance(n, ast.Assign) and len(n.targets) == 1 and
                 isinstance(n.targets[0], ast.Name) and len(stores.get(n.targets[0].id, ())) == 1}
        for n in body:
            if not (isinstance(n, ast.Call) and dotted(n.func) == "setattr" and len(n.args) >= 3) or \
                    any(line < n.lineno for line in exits):
                continue
            key = n.args[1]
            if isinstance(key, ast.Name):
                key = bound.get(key.id)
            for name in _fill(key, var, values):
                yield name, n.args[0], n.lineno


def _fill(key: Optional[ast.expr], var: str, values: list[str]) -> list[str]:
    """The names an f-string of only constants and ``{var}`` (no conversion, no format spec)
    spells, one per value."""
    if not isinstance(key, ast.JoinedStr):
        return []
    for v in key.values:
        if isinstance(v, ast.FormattedValue) and not (isinstance(v.value, ast.Name) and v.value.id == var and
                                                      v.conversion == -1 and v.format_spec is None):
            return []
    out = []
    for x in values:
        s = "".join(str(v.value) if isinstance(v, ast.Constant) else x for v in key.values)
        if s.isidentifier():
            out.append(s)
    return out


def bulk(stores: list[tuple]) -> list[bool]:
    """For each (attribute, receiver, function, ...) store one file makes this way: whether its
    function stores ``BULK`` or more distinct names on the same receiver (a name, as written)."""
    names: dict[tuple, set] = {}
    for attr, recv, fn, *_rest in stores:
        if isinstance(recv, ast.Name):
            names.setdefault((id(fn), recv.id), set()).add(attr)
    return [isinstance(recv, ast.Name) and len(names[(id(fn), recv.id)]) >= BULK for _a, recv, fn, *_r in stores]


#: ``for side in ('top', ...`` or ``for side in 'top', ...``: a loop over string constants (from its
#: literal ``for``, which the regex engine searches fast; a ``\b`` before it made it try every position)
_LITERAL_LOOP = re.compile(r"for\s+(\w+)\s+in\s+[(\[]?\s*[\"']")


def has_literal_loop(text: str) -> bool:
    """The source may hold a loop ``looped_stores`` reads: ``setattr(``, and a loop over string
    constants whose variable an f-string spells (``{side}``); a cheap test before parsing."""
    return "setattr(" in text and any("{%s}" % m.group(1) in text for m in _LITERAL_LOOP.finditer(text))
