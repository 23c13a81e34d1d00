"""What an object built with its constructor's defaults looks like: the parameters of the ``__init__``
construction runs, at their default values, and the attributes its body sets from them in
straight-line code, evaluated just far enough to decide a path condition (``if norm_cfg is not
None:``, ``if self.with_norm:``, ``if self._file_drops:``).

A construction path the defaults take is not a configuration mode that callers opt into: it is how
the class is built when nobody asks for anything (mmcv's ``ConvModule()`` without ``norm_cfg``,
pyglet's ``XlibWindow`` with ``file_drops=False``). PK001 names it in the warning's message. It stays
a warning: measured on the labelled corpus, making such reads errors was right for 12 of 30 new
error groups (configuration-built classes such as mmdet's heads are always given the part)."""
from __future__ import annotations

import ast
from typing import Optional

from .astutil import first_param
from .conditions import TEST

#: a value the evaluator cannot know
UNKNOWN = object()
_CONSTANTS = (type(None), bool, int, float, str)


def default_env(fn: ast.FunctionDef, deps: Optional[dict] = None) -> dict:
    """:func:`compute_env` of ``fn``, computed once per function (a copy: callers may not share it)."""
    from .astutil import memo_on
    env, dep = memo_on(fn, "_pk_default_env", lambda: _env_and_deps(fn))
    if deps is not None:
        deps.update(dep)
    return dict(env)


def _env_and_deps(fn) -> tuple:
    deps: dict = {}
    return compute_env(fn, deps), deps


def compute_env(fn: ast.FunctionDef, deps: Optional[dict] = None) -> dict:
    """{name: value} for ``fn``'s parameters with a constant default, then for every ``self.<a> =
    <expr>`` at the top level of its body whose value those decide (``self.with_norm = norm_cfg
    is not None``); an attribute also stored inside a nested block is unknown. ``deps`` (filled
    when given): attribute -> the parameters its value came from."""
    env: dict = {}
    deps = {} if deps is None else deps
    args = fn.args
    positional = args.posonlyargs + args.args
    for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        env[a.arg] = _const(d)
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        if d is not None:
            env[a.arg] = _const(d)
    for a in positional + args.kwonlyargs:
        env.setdefault(a.arg, UNKNOWN)  # required: the caller decides
    selfname = first_param(fn)
    if selfname is None:
        return env
    nested = set()
    for stmt in fn.body:
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.AsyncFor, ast.AsyncWith)) or \
                type(stmt).__name__ in ("Match", "TryStar"):
            for node in ast.walk(stmt):
                a = _self_target(node, selfname)
                if a:
                    nested.add(a)
    for stmt in fn.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                a = _self_target(t, selfname)
                if a:
                    env[a] = UNKNOWN if a in nested else evaluate_node(stmt.value, env, selfname)
                    names = [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(stmt.value)
                             if isinstance(n, ast.Name) or (isinstance(n, ast.Attribute) and _self_target(
                                 ast.Attribute(n.value, n.attr, ast.Store()), selfname))]
                    deps[a] = [p for n in names for p in deps.get(n, [n])]
    return env


def _self_target(node, selfname: str) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
            isinstance(node.value, ast.Name) and node.value.id == selfname:
        return node.attr
    return None


def _const(node: ast.expr):
    if isinstance(node, ast.Constant) and isinstance(node.value, _CONSTANTS):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set)) and not _elements(node):
        return {ast.List: [], ast.Tuple: (), ast.Dict: {}, ast.Set: set()}[type(node)]
    return UNKNOWN


def _elements(node) -> list:
    return node.keys if isinstance(node, ast.Dict) else node.elts


def evaluate(key: str, env: dict):
    """The value of a condition's key (normalised text, ``self.`` stripped) under ``env``, or UNKNOWN."""
    try:
        node = ast.parse(key, mode="eval").body
    except SyntaxError:
        return UNKNOWN
    return evaluate_node(node, env, None)


def evaluate_node(node: ast.expr, env: dict, selfname: Optional[str]):
    """A small, side-effect-free evaluator: names, constants, ``not``/``and``/``or``, ``is``/``is
    not``/``==``/``!=`` against constants; anything else is UNKNOWN."""
    if isinstance(node, ast.Constant):
        return _const(node)
    if isinstance(node, ast.Name):
        return env.get(node.id, UNKNOWN)
    if isinstance(node, ast.Attribute) and selfname and isinstance(node.value, ast.Name) and node.value.id == selfname:
        return env.get(node.attr, UNKNOWN)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = evaluate_node(node.operand, env, selfname)
        return UNKNOWN if v is UNKNOWN else not v
    if isinstance(node, ast.BoolOp):
        vals = [evaluate_node(v, env, selfname) for v in node.values]
        want = isinstance(node.op, ast.Or)  # the value that decides an or (true) / an and (false)
        for v in vals:
            if v is UNKNOWN:
                return UNKNOWN
            if bool(v) == want:
                return v
        return vals[-1]
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = evaluate_node(node.left, env, selfname)
        right = evaluate_node(node.comparators[0], env, selfname)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        op = node.ops[0]
        singleton = any(v is None or v is True or v is False for v in (left, right))
        if isinstance(op, ast.Is):
            return left is right if singleton else UNKNOWN
        if isinstance(op, ast.IsNot):
            return left is not right if singleton else UNKNOWN
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
    return UNKNOWN


def defaults_take(missing, having_common: set, init_fn, read_conds=(), flag_only: bool = True) -> Optional[str]:
    """Why the construction path ``missing`` is the one the defaults take (``file_drops=False``),
    when every branch test that sets it apart from the paths having the attribute is decided by
    the defaults the way the path went (through parameters the class's ``__init__`` declares with a
    default), and no condition of the read itself is decided against it by the same defaults
    (botorch's ``if self.constraints is not None:`` around ``self.eta``, with ``constraints=None``);
    else None. ``flag_only``: every deciding parameter must default to True or False (a mode
    switch left off); otherwise a ``None`` default counts too (an optional part left out)."""
    if init_fn is None:
        return None
    deps: dict = {}
    env = default_env(init_fn, deps)
    for key, holds in read_conds:
        v = evaluate(key, env)
        if v is not UNKNOWN and bool(v) != holds:
            return None  # an object built with the defaults never reaches the read
    # in path order: the conditions are a frozenset, whose order changes with the hash seed
    tests = [c for c in sorted(missing.conds, key=lambda c: c.order)
             if c.origin == TEST and (c.key, c.holds) not in having_common]
    if not tests:
        return None
    for c in missing.conds:  # the whole path, shared tests included, must be one the defaults allow
        if c.origin == TEST:
            v = evaluate(c.key, env)
            if v is not UNKNOWN and bool(v) != c.holds:
                return None  # (biopython's Astral(): the defaults raise before any of this)
    used = []
    for c in tests:
        v = evaluate(c.key, env)
        if v is UNKNOWN or bool(v) != c.holds:
            return None
        used += [p for n in ast.walk(ast.parse(c.key, mode="eval")) if isinstance(n, ast.Name)
                 for p in deps.get(n.id, [n.id])]
    params = {a.arg: d for a, d in _defaults(init_fn)}
    decisive = [n for n in dict.fromkeys(used) if n in params]
    if not decisive:
        return None
    if flag_only and not all(isinstance(params[n], ast.Constant) and isinstance(params[n].value, bool)
                             for n in decisive):
        return None  # `detector=None`: an optional part a configuration supplies, not a mode switch
    return ", ".join(f"{n}={ast.unparse(params[n])}" for n in decisive)


def _defaults(fn):
    args = fn.args
    positional = args.posonlyargs + args.args
    out = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    out += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return out


def never_under_defaults(conds, init_fn) -> bool:
    """Some test in ``conds`` (``(key, holds)`` pairs) is decided against ``holds`` by the defaults
    of ``init_fn``: code under them never runs on an object built with the defaults."""
    env = default_env(init_fn)
    for key, holds in conds:
        v = evaluate(key, env)
        if v is not UNKNOWN and bool(v) != holds:
            return True
    return False
