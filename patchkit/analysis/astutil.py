"""AST helpers every part of the analyzer uses: a fast child walk, dotted names, the instance
parameter, and what a function's body says about returning."""
from __future__ import annotations

import ast
import re
from typing import Optional

#: the compound statements whose blocks run at module level as the module's own statements
MODULE_BLOCKS = (ast.If, ast.Try, ast.With) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def block_statements(n: ast.stmt) -> list:
    """Every statement an ``if``/``try``/``except*``/``with`` holds, its ``else``, ``except`` and
    ``finally`` blocks included (distlib's ``ConvertingDict`` and the configurator that injects its
    ``configurator`` are defined under ``except ImportError:``)."""
    return (getattr(n, "body", []) + getattr(n, "orelse", []) +
            [x for h in getattr(n, "handlers", []) for x in h.body] + getattr(n, "finalbody", []))


def module_level(body: list, skip=None):
    """Module-level statements, looking into if/try/with blocks (imports under TYPE_CHECKING ...).
    ``skip(test)`` true for an ``if`` test: only that ``if``'s ``else`` is looked into."""
    for st in body:
        yield st
        if skip is not None and isinstance(st, ast.If) and skip(st.test):
            yield from module_level(st.orelse, skip)
        elif isinstance(st, MODULE_BLOCKS):
            yield from module_level(block_statements(st), skip)


def is_type_checking(test) -> bool:
    """``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``: a block only the type checker reads."""
    return (dotted(test) or "").split(".")[-1] == "TYPE_CHECKING"


def terminates(body: list, through_try: bool = False) -> bool:
    """The block never falls off its end: it returns, raises, continues, breaks or exits on every
    path (through ``if``/``else``; with ``through_try``, a ``try`` whose body or ``else`` and every
    handler do)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        return (dotted(last.value.func) or "") in ("sys.exit", "exit", "os._exit")
    if isinstance(last, ast.If):
        return terminates(last.body, through_try) and terminates(last.orelse, through_try)
    if through_try and isinstance(last, ast.Try):
        return (terminates(last.body, True) or terminates(last.orelse, True)) and \
            all(terminates(h.body, True) for h in last.handlers)
    return False


_SKIP_FIELDS = {"ctx", "op", "ops", "type_ignores"}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(c: type) -> tuple[str, ...]:
    f = _CHILD_FIELDS.get(c)
    if f is None:
        f = _CHILD_FIELDS[c] = tuple(n for n in c._fields if n not in _SKIP_FIELDS)
    return f


def children(node: ast.AST) -> list:
    """The child nodes of ``node`` in field order (``ast.iter_child_nodes`` without operators and
    contexts, as a list)."""
    out: list = []
    AST = ast.AST
    for name in child_fields(node.__class__):
        v = getattr(node, name, None)
        if v.__class__ is list:
            out.extend([x for x in v if isinstance(x, AST)])
        elif isinstance(v, AST):
            out.append(v)
    return out


#: nested functions: their bodies run when they are called, not with the enclosing scope's statements
FUNCTION_NODES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})
#: nested functions and classes (a class body is a scope of its own)
SCOPE_NODES = FUNCTION_NODES | {ast.ClassDef}


def own_nodes(roots, stop: frozenset = SCOPE_NODES):
    """The nodes of a scope's own code: below ``roots`` (a node, whose children are walked, or a list
    of nodes, walked themselves), not descending into a nested node whose type ``stop`` names (that
    node itself is yielded, its body is not). Operator and context leaves are left out."""
    todo = list(children(roots)) if isinstance(roots, ast.AST) else list(roots)
    pop = todo.pop
    while todo:
        n = pop()
        yield n
        if n.__class__ not in stop:
            todo += children(n)


#: nodes whose walks are kept on them: every rule walks the same functions and classes again
_MEMO_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})


def _kept(node: ast.AST, name: str, walker):
    """``walker(node)``; for a function or a class, listed once and kept on the node as ``name``
    (the trees are never changed after parsing)."""
    if node.__class__ not in _MEMO_KINDS:
        return walker(node)
    got = getattr(node, name, None)
    if got is None:
        got = tuple(walker(node))
        setattr(node, name, got)
    return iter(got)


def fast_walk(node: ast.AST):
    """Every node below ``node`` (like ast.walk, without its per-node generator overhead; operator
    and context nodes are left out); a function's or a class's list is kept on it."""
    return _kept(node, "_pk_fast", _fast_walk)


def walk(node: ast.AST):
    """``ast.walk(node)``'s nodes in its order, less the operator and context leaves (bfs_walk); a
    function's or a class's list is kept on it."""
    return _kept(node, "_pk_walk", bfs_walk)


def bfs_walk(node: ast.AST):
    """``ast.walk(node)``'s nodes in its order, less the operator and context leaves (faster)."""
    from collections import deque
    todo = deque([node])
    pop, extend = todo.popleft, todo.extend
    while todo:
        n = pop()
        extend(children(n))
        yield n


def _fast_walk(node: ast.AST):
    stack = [node]
    pop, push = stack.pop, stack.append
    AST = ast.AST
    while stack:
        n = pop()
        yield n
        for name in child_fields(n.__class__):
            v = getattr(n, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, AST):
                        push(x)
            elif isinstance(v, AST):
                push(v)


def dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain (``Generic[T]`` -> ``Generic``), else None."""
    if isinstance(node, ast.Subscript):
        return dotted(node.value)
    if isinstance(node, ast.Call):
        return dotted(node.func)
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


#: a run of word characters (an identifier made of them)
WORD = re.compile(r"\w+")


def built_receiver(node: ast.AST) -> bool:
    """``X(...)`` (or ``X(...)[k]``): an object a call returns, not a class named in the code;
    ``type(obj)`` names the object's class."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Call) and dotted(node.func) != "type"


def self_attr(node: ast.AST, selfname: str) -> Optional[str]:
    """``x`` when node is ``<selfname>.x``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == selfname:
        return node.attr
    return None


def flat_targets(targets):
    """The targets of an assignment with tuple and list targets spread out (``a.x, (b.y, *c.z) = ...``)."""
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            yield from flat_targets(t.elts)
        elif isinstance(t, ast.Starred):
            yield from flat_targets([t.value])
        else:
            yield t


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(target))


def outer_scope_parts(e: ast.expr, name: str) -> Optional[list]:
    """For a comprehension whose loop target rebinds ``name`` (minified code's ``[A for A in
    A.__slots__ if not A.endswith('_mark')]``, where ``A`` is the instance): the parts that still
    see the outer ``name`` (every iterable up to the rebinding one, the conditions before it), in
    the order they run. None when no target rebinds it (the whole comprehension sees the outer name)."""
    gens = e.generators
    first = next((i for i, g in enumerate(gens) if _binds(g.target, name)), None)
    if first is None:
        return None
    parts = []
    for i, g in enumerate(gens[:first + 1]):
        parts.append(g.iter)
        if i < first:
            parts.extend(g.ifs)
    return parts


def is_super_call(node: ast.AST) -> bool:
    """``super()`` or ``super(Cls, self)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def super_member(node: ast.expr) -> ast.expr:
    """``getattr(super(), "name")`` as the ``super().name`` it looks up; any other node as it is."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
            len(node.args) == 2 and not node.keywords and is_super_call(node.args[0]) and \
            isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return ast.copy_location(ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Load()), node)
    return node


def super_aliases(fn: ast.AST) -> frozenset[str]:
    """Locals of ``fn`` bound to ``super()`` (``super_class = super(); super_class.__call__(root)``,
    Cython's AnalyseDeclarationsTransform), memoised on the function node."""
    def compute() -> frozenset[str]:
        return frozenset(t.id for n in fast_walk(fn) if isinstance(n, ast.Assign) and is_super_call(n.value)
                         for t in n.targets if isinstance(t, ast.Name))
    return memo_on(fn, "_pk_super_aliases", compute)


def is_super(node: ast.AST, fn: ast.AST) -> bool:
    """``node`` (the receiver of a call) is ``super()`` or a local of ``fn`` bound to it."""
    return is_super_call(node) or (isinstance(node, ast.Name) and node.id in super_aliases(fn))


def first_param(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Optional[str]:
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def _is_noreturn_annotation(ann: Optional[ast.expr]) -> bool:
    d = dotted(ann) if ann is not None else None
    return bool(d) and d.split(".")[-1] in ("NoReturn", "Never")



def _always_raises(fn) -> bool:
    """The body ends in ``raise`` and nothing in it returns or yields (astropy's ``vo_raise``)."""
    if not fn.body or not isinstance(fn.body[-1], ast.Raise):
        return False
    return not any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in fast_walk(fn))


def _only_raises_not_implemented(fn) -> bool:
    """The body (after a docstring) is ``raise NotImplementedError`` / ``raise NotImplementedError(...)``."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return (dotted(exc) or "").split(".")[-1] == "NotImplementedError"


def decorator_name(d: ast.expr) -> str:
    """The dotted name a decorator applies (``@torch.jit.ignore`` and ``@torch.jit.ignore(drop=True)``
    alike), or "" when it is no name (a lambda, a subscript)."""
    return dotted(d.func if isinstance(d, ast.Call) else d) or ""


def memo_on(obj, name: str, compute):
    """``compute()`` once per object, kept on it as ``name`` (a class's or a node's derived facts)."""
    got = getattr(obj, name, None)
    if got is None:
        got = compute()
        setattr(obj, name, got)
    return got
