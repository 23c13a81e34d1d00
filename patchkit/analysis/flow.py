"""Construction flow: which attributes are assigned on every path through ``__init__``.

A path state is (assigned attributes, conditions known on the path). Branches are
alternatives; states whose conditions contradict a test are pruned, which is what makes
correlated flags (``if flag: self.x = ...`` ... ``if flag: use(self.x)``) come out right.
Helpers called as ``self.m()`` and ``super().__init__()`` / ``Base.__init__(self)`` are
inlined along the concrete class's MRO.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Optional

from .model import NORETURN_CALLS, REGISTER_METHODS, ClassInfo, children, dotted, fast_walk, first_param, self_attr

MAX_STATES = 96
MAX_DEPTH = 12
#: calls nested this deep are walked once per (class, method, entry facts) and the summary is
#: reused: mutually recursive helpers stay polynomial (shallower calls keep every path's conditions)
MEMO_DEPTH = 3


class BudgetExceeded(Exception):
    """The walk of one file went past its time or state budget."""


@dataclass
class Budget:
    """Work allowed for one file: wall-clock seconds and state-steps (statements x states)."""

    seconds: float = 20.0
    steps: int = 3_000_000
    used: int = 0
    deadline: float = 0.0

    def start(self) -> "Budget":
        import time
        self.deadline = time.monotonic() + self.seconds
        self.used = 0
        return self

    def spend(self, n: int) -> None:
        self.used += n
        if self.used > self.steps:
            raise BudgetExceeded(f"more than {self.steps} state-steps")
        if self.used & 0x3FF < n:  # look at the clock about every thousand steps
            import time
            if self.deadline and time.monotonic() > self.deadline:
                raise BudgetExceeded(f"more than {self.seconds:g} s")

#: a condition: (normalised text, polarity, line, human text)
Cond = tuple


def norm_test(node: ast.expr, selfname: str = "self") -> str:
    """A comparable text for a branch test: ``self.`` stripped, so ``flag`` == ``self.flag``."""
    cached = getattr(node, "_pk_norm", None)
    if cached is not None and cached[0] == selfname:
        return cached[1]
    text = _simple_text(node)
    if text is None:
        try:
            text = ast.unparse(node)
        except Exception:  # pragma: no cover - unparse handles every expression we parse
            return repr(node)
    out = text.replace(f"{selfname}.", "")
    try:
        node._pk_norm = (selfname, out)  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover
        pass
    return out


_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.Lt: "<", ast.LtE: "<=",
        ast.Gt: ">", ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in"}


_ATOMS = (ast.Name, ast.Attribute, ast.Constant, ast.Call)  # operands that never need parentheses


def _simple_text(node: ast.expr) -> Optional[str]:
    """``ast.unparse`` of the common test shapes (names, attribute chains, plain constants and one
    comparison of those), byte-identical to it and without its visitor; None for anything else."""
    c = node.__class__
    if c is ast.Name:
        return node.id
    if c is ast.Attribute:
        base = _simple_text(node.value)
        return None if base is None or node.value.__class__ not in (ast.Name, ast.Attribute) else f"{base}.{node.attr}"
    if c is ast.Constant:
        v = node.value
        if v is None or v is True or v is False or (v.__class__ is int and v >= 0):
            return repr(v)
        if v.__class__ is str and v.isprintable() and "'" not in v and '"' not in v and "\\" not in v:
            return repr(v)
        return None
    if c is ast.Call and node.func.__class__ in (ast.Name, ast.Attribute):
        parts = [_simple_text(node.func)]
        parts += [_simple_text(a) for a in node.args]
        parts += [None if k.arg is None else (lambda t: None if t is None else f"{k.arg}={t}")(_simple_text(k.value))
                  for k in node.keywords]
        if any(p is None for p in parts) or any(a.__class__ is ast.Starred for a in node.args):
            return None
        return f"{parts[0]}({', '.join(parts[1:])})"
    if c is ast.Compare and len(node.ops) == 1 and node.ops[0].__class__ in _CMP and \
            node.left.__class__ in _ATOMS and node.comparators[0].__class__ in _ATOMS:
        left, right = _simple_text(node.left), _simple_text(node.comparators[0])
        if left is None or right is None:
            return None
        return f"{left} {_CMP[node.ops[0].__class__]} {right}"
    return None


def _human(node: ast.expr) -> str:
    cached = getattr(node, "_pk_human", None)
    if cached is None:
        cached = _simple_text(node)
        if cached is None:
            cached = ast.unparse(node)
        node._pk_human = cached  # type: ignore[attr-defined]
    return cached


def split_test(node: ast.expr) -> tuple[ast.expr, bool]:
    pol = True
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node, pol = node.operand, not pol
    return node, pol


def conjuncts(node: ast.expr, pol: bool = True) -> list[tuple[ast.expr, bool]]:
    """Facts known when ``node`` evaluates to ``pol``: ``a and b`` true gives both."""
    node, p = split_test(node)
    pol = pol if p else not pol
    if isinstance(node, ast.BoolOp):
        if (isinstance(node.op, ast.And) and pol) or (isinstance(node.op, ast.Or) and not pol):
            out = []
            for v in node.values:
                out += conjuncts(v, pol)
            return out
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
            isinstance(node.ops[0], (ast.IsNot, ast.NotEq, ast.LtE, ast.GtE)):
        # `x is not None` true == `x is None` false; `n <= 1` true == `n > 1` false
        flip = {ast.IsNot: ast.Is, ast.NotEq: ast.Eq, ast.LtE: ast.Gt, ast.GtE: ast.Lt}[type(node.ops[0])]
        eq = ast.Compare(left=node.left, ops=[flip()], comparators=node.comparators)
        return [(eq, not pol)]
    return [(node, pol)]


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


def _is_self(node: ast.expr, selfname: str) -> bool:
    return isinstance(node, ast.Name) and node.id == selfname


def const_truth(node: ast.expr) -> Optional[bool]:
    node, pol = split_test(node)
    if isinstance(node, ast.Constant):
        return bool(node.value) == pol
    if (dotted(node) or "").split(".")[-1] == "TYPE_CHECKING":
        return not pol
    return None


_CONST_TYPES = (bool, int, float, str, type(None))


def _deletes(fn: ast.AST) -> bool:
    cached = getattr(fn, "_pk_deletes", None)
    if cached is None:
        cached = any(isinstance(n, ast.Delete) or (isinstance(n, ast.Call) and dotted(n.func) == "delattr")
                     for n in fast_walk(fn))
        fn._pk_deletes = cached  # type: ignore[attr-defined]
    return cached


def _forget_locals(out: list, before: list, fn: ast.AST, selfname: str, kept: set = frozenset()) -> list:
    """Facts about a callee's own names (its parameters and locals) end with the call: a second
    call, or another helper with a local of the same name, must not be pruned by them. Names it
    stored under their own name (``self.mode = mode``) stay: they now describe the attribute."""
    pat = _locals_pattern(fn, selfname, frozenset(kept))
    if pat is None:
        return out
    known = set().union(*(x.conds for x in before)) if before else set()
    return merge([State(x.assigned, frozenset(c for c in x.conds
                                               if c in known or c[0].startswith("<") or not pat.search(c[0])))
                  for x in out])


@functools.lru_cache(maxsize=8192)
def _locals_pattern_cached(names: frozenset) -> Optional[re.Pattern]:
    return re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b") if names else None


def _locals_pattern(fn: ast.AST, selfname: str, kept: frozenset) -> Optional[re.Pattern]:
    """A regex matching the function's own names (parameters and locals), minus ``kept``."""
    own = getattr(fn, "_pk_own", None)
    if own is None:
        a = fn.args
        own = frozenset({p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
                        | ({a.vararg.arg} if a.vararg else set()) | ({a.kwarg.arg} if a.kwarg else set())
                        | _rebound(fn))
        fn._pk_own = own  # type: ignore[attr-defined]
    return _locals_pattern_cached(own - {selfname} - kept)


def _rebound(fn: ast.AST) -> set:
    """Names a function (re)binds anywhere in its body (cached on the node)."""
    cached = getattr(fn, "_pk_rebound", None)
    if cached is None:
        cached = {n.id for n in fast_walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        cached |= {n for st in fast_walk(fn) if isinstance(st, (ast.Global, ast.Nonlocal)) for n in st.names}
        fn._pk_rebound = cached  # type: ignore[attr-defined]
    return cached


def bind_constants(fn: ast.FunctionDef, call: ast.Call, self_passed: bool) -> dict:
    """Parameter -> value for the parameters a call fixes to a literal (explicitly, or by omitting
    one that has a literal default), leaving out any the function rebinds. Calls with ``*args`` or
    ``**kwargs`` bind nothing (positions and names are unknown)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return {}
    a = fn.args
    positional = a.posonlyargs + a.args
    params = positional[1:]  # the first is self
    args = call.args[1:] if self_passed else call.args
    if len(args) > len(params) and a.vararg is None:
        return {}
    given: dict[str, ast.expr] = {p.arg: v for p, v in zip(params, args)}
    for k in call.keywords:
        given[k.arg] = k.value
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    out = {}
    for name in [p.arg for p in params] + [p.arg for p in a.kwonlyargs]:
        node = given.get(name, defaults.get(name) if name not in given else None)
        if isinstance(node, ast.Constant) and isinstance(node.value, _CONST_TYPES):
            out[name] = node.value
    if out:
        rebound = _rebound(fn)
        out = {k: v for k, v in out.items() if k not in rebound}
    return out


def frame_truth(test: ast.expr, fr: "Frame") -> Optional[bool]:
    """const_truth, plus tests of parameters the call site fixed (``if not use_dsa``,
    ``if mode is None``, ``if kind == "x"``)."""
    t = const_truth(test)
    if t is not None or not fr.consts:
        return t
    node, pol = split_test(test)
    if isinstance(node, ast.Name) and node.id in fr.consts:
        return bool(fr.consts[node.id]) == pol
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name) \
            and node.left.id in fr.consts and isinstance(node.comparators[0], ast.Constant):
        v, w, op = fr.consts[node.left.id], node.comparators[0].value, node.ops[0]
        if isinstance(op, ast.Is):
            r = v is w if w is None or isinstance(w, bool) else None
        elif isinstance(op, ast.IsNot):
            r = v is not w if w is None or isinstance(w, bool) else None
        elif isinstance(op, ast.Eq):
            r = v == w
        elif isinstance(op, ast.NotEq):
            r = v != w
        else:
            r = None
        return None if r is None else r == pol
    return None


@dataclass(frozen=True)
class State:
    assigned: frozenset
    conds: frozenset = frozenset()

    def add(self, *names: str) -> "State":
        return State(self.assigned | frozenset(names), self.conds)

    def remove(self, name: str) -> "State":
        return State(self.assigned - {name}, self.conds)

    def with_cond(self, c: Cond) -> "State":
        return State(self.assigned, self.conds | {c})

    def contradicts(self, key: str, pol: bool) -> bool:
        return any(c[0] == key and c[1] != pol for c in self.conds)


def merge(states: Iterable[State]) -> list[State]:
    """Deduplicate; states with equal assigned sets merge keeping their common conditions."""
    by_assigned: dict[frozenset, State] = {}
    for s in states:
        prev = by_assigned.get(s.assigned)
        by_assigned[s.assigned] = s if prev is None else State(s.assigned, prev.conds & s.conds)
    out = list(by_assigned.values())
    if len(out) > MAX_STATES:
        common = frozenset.intersection(*(s.assigned for s in out))
        conds = frozenset.intersection(*(s.conds for s in out))
        out = [State(common, conds)]
    return out


@dataclass
class Flow:
    """Result of a statement sequence: states that fall through, return, break, continue."""

    normal: list[State] = field(default_factory=list)
    returns: list[State] = field(default_factory=list)
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


@dataclass
class Frame:
    cls: ClassInfo            # the class that defines the function being walked (for super())
    fn: ast.AST
    selfname: str
    guarded: bool = False     # inside try/except AttributeError or `with suppress(...)`
    known: frozenset = frozenset()  # attrs implied by hasattr/getattr tests around the point
    depth: int = 0
    #: parameters whose value the call site fixes (a constant argument or the default of an
    #: omitted one) and which the function never rebinds: ``super().__init__(use_dsa=True)``
    consts: dict = field(default_factory=dict)
    #: functions defined in this function's body so far (a call runs their body now)
    local_funcs: dict = field(default_factory=dict)
    #: conditions the states carried when this function was entered (older than its locals)
    entry_conds: frozenset = frozenset()
    #: locals stored under their own name (self.x = x): their facts outlive the call as facts
    #: about the attribute
    kept: set = field(default_factory=set)


#: callback for a construction-time read: (attr, node, frame, states)
ReadHook = Callable[[str, ast.Attribute, Frame, list[State]], None]


class Constructor:
    """Walks construction of one concrete class. ``mro`` holds ClassInfo or external names."""

    def __init__(self, concrete: ClassInfo, mro: list, resolve_method, on_read: ReadHook,
                 on_escape: Callable[[ast.Call, Frame], None], resolve_init_class,
                 is_noreturn_call: Callable[[ast.Call, Frame], bool]):
        self.concrete = concrete
        self.mro = mro
        self.resolve_method = resolve_method          # (name, after_cls|None) -> (ClassInfo, fn) | None
        self.resolve_init_class = resolve_init_class  # dotted name in frame's module -> ClassInfo | str
        self.on_read = on_read
        self.on_escape = on_escape
        self.is_noreturn_call = is_noreturn_call
        self.stack: list[tuple] = []
        self.external_init_ran = False
        self.inlined: set[str] = set()
        self.resolve_setter = lambda name: next(((c, c.setters[name]) for c in mro
                                                 if isinstance(c, ClassInfo) and name in c.setters), None)
        #: every attribute some construction path assigns / deletes (survives state merging)
        self.seen: set[str] = set()
        self.deleted: set[str] = set()
        #: every deletion in walk order (a try body's deletions reach its handlers)
        self.del_log: list[str] = []
        #: flag attribute -> attributes its truth implies (``self.has_x = hasattr(self, "x")``)
        self.implies: dict[str, frozenset] = {}
        #: local name -> attribute it was stored in (``self.layout = layout``): facts about the
        #: local are facts about the attribute too
        self.aliases: dict[str, str] = {}
        #: (class, method, guarded, constants, entry assigned set) -> exit states (conditions relative to entry)
        self.memo: dict[tuple, list[State]] = {}
        self.budget: Optional[Budget] = None

    # ---------------------------------------------------------------- entry
    def run(self, start: State, init: Optional[tuple[ClassInfo, ast.FunctionDef]]) -> list[State]:
        if init is None:
            return [start]
        cls, fn = init
        return self.call_function(cls, fn, [start], depth=0)

    def call_function(self, cls: ClassInfo, fn: ast.FunctionDef, states: list[State], depth: int,
                      guarded: bool = False, call: Optional[ast.Call] = None,
                      self_passed: bool = False) -> list[State]:
        key = (cls.key, fn.name)
        if key in self.stack:
            # recursion: a call that returns has gone through some non-recursive path, which the
            # outer walk sees, and assignments only accumulate; so paths through the recursive call
            # can be dropped (unless the function deletes attributes)
            return [] if not _deletes(fn) else states
        if depth > MAX_DEPTH or not states:
            return states
        selfname = first_param(fn)
        if selfname is None:
            return states
        if depth >= MEMO_DEPTH:
            return self._summarised(cls, fn, states, depth, guarded, call, self_passed)
        return self._walk_call(cls, fn, states, depth, guarded, call, self_passed)

    def _summarised(self, cls, fn, states, depth, guarded, call, self_passed) -> list[State]:
        """Exit states of ``fn`` from a summary walked once per (class, method, guarded, constant
        arguments): the walk starts from an empty state and logs what it assigns and reads; each
        call composes the entry states with the summary (assignments only accumulate) and replays
        the logged reads against the composed states. A function that deletes attributes is
        summarised per entry assigned-set instead (its exits are not a union with the entry)."""
        consts = bind_constants(fn, call, self_passed) if call is not None else {}
        key = (cls.key, id(fn), guarded, tuple(sorted(consts.items(), key=lambda kv: kv[0])))
        deletes = _deletes(fn)
        out: list[State] = []
        for s in (states if deletes else [None]):
            k = key + ((s.assigned,) if deletes else ())
            summary = self.memo.get(k)
            if summary is None:
                log: list = []
                prev = self.on_read
                self.on_read = lambda attr, node, frame, sts: log.append((attr, node, frame, sts))
                try:
                    exits = self._walk_call(cls, fn, [State(s.assigned if deletes else frozenset())], depth,
                                            guarded, call, self_passed)
                finally:
                    self.on_read = prev
                summary = self.memo[k] = (exits, log)
            exits, log = summary
            entries = [s] if deletes else states
            for attr, node, frame, rel in log:
                real = _compose(entries, rel, deletes)
                if real:
                    self.on_read(attr, node, frame, real)
            out += _compose(entries, exits, deletes)
        return merge(out)

    def _walk_call(self, cls, fn, states, depth, guarded, call, self_passed) -> list[State]:
        key = (cls.key, fn.name)
        selfname = first_param(fn)
        self.stack.append(key)
        self.inlined.add(f"{cls.qualname}.{fn.name}")
        try:
            frame = Frame(cls, fn, selfname, guarded=guarded, depth=depth,
                          consts=bind_constants(fn, call, self_passed) if call is not None else {},
                          entry_conds=frozenset().union(*(x.conds for x in states)))
            flow = self.block(fn.body, states, frame)
            out = merge(flow.normal + flow.returns)
            return _forget_locals(out, states, fn, selfname, frame.kept) if depth > 0 else out
        finally:
            self.stack.pop()

    # ---------------------------------------------------------------- statements
    def block(self, body: list[ast.stmt], states: list[State], fr: Frame) -> Flow:
        out = Flow()
        cur = states
        budget = self.budget
        for stmt in body:
            if not cur:
                break
            if budget is not None:
                budget.spend(len(cur))
            f = self.stmt(stmt, cur, fr)
            out.returns += f.returns
            out.breaks += f.breaks
            out.continues += f.continues
            cur = merge(f.normal) if f.normal else []
        out.normal = cur
        return out

    def stmt(self, s: ast.stmt, st: list[State], fr: Frame) -> Flow:
        meth = getattr(self, "s_" + s.__class__.__name__, None)
        if meth is None:
            st = self.expr_children(s, st, fr)
            return Flow(normal=st)
        return meth(s, st, fr)

    def s_Expr(self, s, st, fr):
        return Flow(normal=self.expr(s.value, st, fr))

    def s_Pass(self, s, st, fr):
        return Flow(normal=st)

    def s_Assign(self, s, st, fr):
        st = self.expr(s.value, st, fr)
        for t in s.targets:
            st = self.store(t, st, fr)
            st = self.record_value(t, s.value, st, fr)
        return Flow(normal=st)

    def s_AnnAssign(self, s, st, fr):
        if s.value is None:
            return Flow(normal=st)
        st = self.expr(s.value, st, fr)
        st = self.store(s.target, st, fr)
        return Flow(normal=self.record_value(s.target, s.value, st, fr))

    def record_value(self, t, value, st, fr):
        """``self.disabled = True`` makes ``disabled`` a known fact on this path (and drops old facts
        about it), so later reads guarded by ``if self.disabled: return`` correlate."""
        a = self_attr(t, fr.selfname)
        if a is None:
            chain = dotted(t) if isinstance(t, ast.Attribute) else None
            if chain and chain.startswith(fr.selfname + ".") and isinstance(value, ast.Constant):
                # self.config.flag = True: later tests of self.config.flag know it on this path
                key = chain[len(fr.selfname) + 1:]
                return [State(x.assigned, frozenset(c for c in x.conds if c[0] not in (key, f"{key} is None"))
                              | {(key, bool(value.value), -t.lineno, chain),
                                 (f"{key} is None", value.value is None, -t.lineno, f"{chain} is None")})
                        for x in st]
            return st
        keys = (a, f"{a} is None")
        out = []
        same_name = isinstance(value, ast.Name) and value.id == a  # self.use_y = use_y: one key
        if same_name:
            fr.kept.add(a)
        for x in st:
            # same name: facts about the local are now facts about the attribute; facts about the
            # attribute from before this function began are stale
            conds = frozenset(c for c in x.conds if c[0] not in keys or (same_name and c not in fr.entry_conds))
            # value facts carry a negative line: they follow from a branch, they are not one
            if isinstance(value, ast.Name) and value.id != a:
                self.aliases[value.id] = a
                # facts already known about the local (`if use_y: ...` before `self.use_y = use_y`)
                # are facts about the attribute from now on
                pat = re.compile(rf"\b{re.escape(value.id)}\b")
                conds |= {(pat.sub(a, c[0]), c[1], c[2], c[3]) for c in conds
                          if c[0] not in keys and pat.search(c[0]) and not c[0].startswith("<")}
            implied = implied_attrs(value, True, fr.selfname)
            if implied:  # self.has_x = hasattr(self, "x"): has_x true later implies x exists
                self.implies[a] = frozenset(implied)
            if isinstance(value, ast.Constant):
                conds |= {(a, bool(value.value), -t.lineno, f"self.{a}"),
                          (f"{a} is None", value.value is None, -t.lineno, f"self.{a} is None")}
            elif isinstance(value, (ast.List, ast.Dict, ast.Tuple, ast.Set, ast.Call, ast.Lambda)):
                conds |= {(f"{a} is None", False, -t.lineno, f"self.{a} is None")}
            out.append(State(x.assigned, conds))
        return out

    def s_AugAssign(self, s, st, fr):
        st = self.expr(s.value, st, fr)
        a = self_attr(s.target, fr.selfname)
        if a is not None:
            self.read(a, s.target, fr, st)
            return Flow(normal=[x.add(a) for x in st])
        st = self.expr(s.target, st, fr)
        return Flow(normal=st)

    def s_Delete(self, s, st, fr):
        for t in s.targets:
            a = self_attr(t, fr.selfname)
            if a is not None:
                self.deleted.add(a)
                self.del_log.append(a)
                st = [x.remove(a) for x in st]
            else:
                st = self.expr(t, st, fr)
        return Flow(normal=st)

    def s_Return(self, s, st, fr):
        if s.value is not None:
            st = self.expr(s.value, st, fr)
        return Flow(returns=st)

    def s_Raise(self, s, st, fr):
        if s.exc is not None:
            self.expr(s.exc, st, fr)
        return Flow()

    def s_Assert(self, s, st, fr):
        t = const_truth(s.test)
        st = self.expr(s.test, st, fr)
        if t is False:
            return Flow()
        return Flow(normal=self.assume(s.test, True, st, fr))

    def s_Break(self, s, st, fr):
        return Flow(breaks=st)

    def s_Continue(self, s, st, fr):
        return Flow(continues=st)

    def s_FunctionDef(self, s, st, fr):
        for d in s.decorator_list:
            st = self.expr(d, st, fr)
        params = {a.arg for a in s.args.posonlyargs + s.args.args + s.args.kwonlyargs}
        if not s.decorator_list and fr.selfname not in params:
            fr.local_funcs[s.name] = s  # a closure over self: its body runs when it is called
        else:
            fr.local_funcs.pop(s.name, None)
        return Flow(normal=st)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, s, st, fr):
        return Flow(normal=st)

    def s_Global(self, s, st, fr):
        return Flow(normal=st)

    s_Nonlocal = s_Global
    s_Import = s_Global
    s_ImportFrom = s_Global

    def assume(self, test: ast.expr, pol: bool, st: list[State], fr: Frame) -> list[State]:
        """States that survive the fact ``test == pol``, with the fact recorded."""
        out = []
        facts = conjuncts(test, pol)
        implied = set(implied_attrs(test, pol, fr.selfname))
        for node, p in facts:
            if p and self.implies:
                implied |= self.implies.get(norm_test(node, fr.selfname), frozenset())
        for x in st:
            ok = True
            for node, p in facts:
                key = norm_test(node, fr.selfname)
                if x.contradicts(key, p):
                    ok = False
                    break
            if not ok:
                continue
            for node, p in facts:
                key = norm_test(node, fr.selfname)
                x = x.with_cond((key, p, test.lineno, _human(node)))
                for local, attr in self.aliases.items():
                    if local in key:
                        alias = re.sub(rf"\b{re.escape(local)}\b", attr, key)
                        if alias != key:
                            x = x.with_cond((alias, p, test.lineno, _human(node)))
            if implied:
                x = x.add(*implied)
            out.append(x)
        return out

    def s_If(self, s, st, fr):
        st = self.expr(s.test, st, fr)
        t = frame_truth(s.test, fr)
        flows = []
        if t is not False:
            flows.append(self.block(s.body, self.assume(s.test, True, st, fr), fr))
        if t is not True:
            flows.append(self.block(s.orelse, self.assume(s.test, False, st, fr), fr) if s.orelse
                         else Flow(normal=self.assume(s.test, False, st, fr)))
        return _join(flows)

    def s_While(self, s, st, fr):
        st = self.expr(s.test, st, fr)
        t = frame_truth(s.test, fr)
        body = self.block(s.body, self.assume(s.test, True, st, fr) if t is None else st, fr)
        again = merge(body.normal + body.continues)
        if t is True:  # only break leaves `while True`
            exits = body.breaks
            return Flow(normal=merge(exits), returns=body.returns)
        skipped = [x.with_cond(("<loop>", True, s.lineno, f"the while loop at line {s.lineno} never runs"))
                   for x in st]
        normal_end = merge(skipped + again)
        if s.orelse:
            e = self.block(s.orelse, normal_end, fr)
            return Flow(normal=merge(e.normal + body.breaks), returns=body.returns + e.returns,
                        breaks=e.breaks, continues=e.continues)
        return Flow(normal=merge(normal_end + body.breaks), returns=body.returns)

    def s_For(self, s, st, fr):
        st = self.expr(s.iter, st, fr)
        body_in = self.store(s.target, st, fr)
        body = self.block(s.body, body_in, fr)
        skipped = [x.with_cond(("<loop>", True, s.lineno, f"the for loop at line {s.lineno} runs zero times"))
                   for x in st]
        normal_end = merge(skipped + body.normal + body.continues)
        if s.orelse:
            e = self.block(s.orelse, normal_end, fr)
            return Flow(normal=merge(e.normal + body.breaks), returns=body.returns + e.returns)
        return Flow(normal=merge(normal_end + body.breaks), returns=body.returns)

    s_AsyncFor = s_For

    def s_With(self, s, st, fr):
        swallow = False
        for item in s.items:
            st = self.expr(item.context_expr, st, fr)
            name = (dotted(item.context_expr) or "").split(".")[-1].lower()
            if "suppress" in name or "ignore" in name:
                swallow = True
            if item.optional_vars is not None:
                st = self.store(item.optional_vars, st, fr)
        inner = replace(fr, guarded=fr.guarded or swallow)
        mark = len(self.del_log)
        body = self.block(s.body, st, inner)
        if swallow:
            gone = set(self.del_log[mark:])
            starts = st + [State(x.assigned - gone, x.conds) for x in st] if gone else st
            lost = [x.with_cond(("<with>", True, s.lineno, f"the context manager at line {s.lineno} swallows an exception"))
                    for x in merge(starts)]
            body.normal = merge(body.normal + lost)
        return body

    s_AsyncWith = s_With

    def s_Try(self, s, st, fr):
        catches_attr = any(_catches_attribute_error(h) for h in s.handlers)
        inner = replace(fr, guarded=fr.guarded or catches_attr)
        mark = len(self.del_log)
        body = self.block(s.body, st, inner)
        # the body can raise after a deletion: handlers also start from states without what it deleted
        gone = set(self.del_log[mark:])
        starts = st + [State(x.assigned - gone, x.conds) for x in st] if gone else st
        flows = []
        ok = self.block(s.orelse, body.normal, fr) if s.orelse else Flow(normal=body.normal)
        flows.append(ok)
        for h in s.handlers:
            entry = [x.with_cond(("<except>", True, h.lineno, f"an exception caught at line {h.lineno}"))
                     for x in merge(starts)]
            if h.name:
                pass
            flows.append(self.block(h.body, entry, fr))
        joined = _join(flows)
        joined.returns += body.returns
        joined.breaks += body.breaks
        joined.continues += body.continues
        if s.finalbody:
            fin = self.block(s.finalbody, joined.normal, fr)
            joined.normal = fin.normal
            joined.returns += fin.returns
        return joined

    s_TryStar = s_Try

    def s_Match(self, s, st, fr):
        st = self.expr(s.subject, st, fr)
        flows = []
        irrefutable = False
        for case in s.cases:
            cur = st
            if case.guard is not None:
                cur = self.expr(case.guard, cur, fr)
            flows.append(self.block(case.body, cur, fr))
            if case.guard is None and _irrefutable(case.pattern):
                irrefutable = True
        if not irrefutable:
            flows.append(Flow(normal=[x.with_cond(("<match>", True, s.lineno,
                                                    f"no case of the match at line {s.lineno} matches"))
                                      for x in st]))
        return _join(flows)

    # ---------------------------------------------------------------- stores and expressions
    def store(self, t: ast.expr, st: list[State], fr: Frame) -> list[State]:
        a = self_attr(t, fr.selfname)
        if a is not None:
            setter = self.resolve_setter(a)
            if setter is not None:  # `self.x = v` on a property runs its setter
                return self.call_function(setter[0], setter[1], st, fr.depth + 1, fr.guarded)
            if st:
                self.seen.add(a)
            return [x.add(a) for x in st]
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                st = self.store(e.value if isinstance(e, ast.Starred) else e, st, fr)
            return st
        if isinstance(t, ast.Starred):
            return self.store(t.value, st, fr)
        if isinstance(t, (ast.Attribute, ast.Subscript)):
            return self.expr_children(t, st, fr)
        return st

    def expr_children(self, node: ast.AST, st: list[State], fr: Frame) -> list[State]:
        for child in children(node):
            if isinstance(child, ast.expr):
                st = self.expr(child, st, fr)
            elif isinstance(child, (ast.comprehension, ast.keyword)):
                st = self.expr_children(child, st, fr)
        return st

    def expr(self, e: ast.expr, st: list[State], fr: Frame) -> list[State]:
        if not st:
            return st
        if isinstance(e, (ast.Lambda,)):
            return st  # body runs later, if ever: checked as a post-construction read
        if isinstance(e, ast.GeneratorExp):
            return self.expr(e.generators[0].iter, st, fr)  # only the first iterable runs now
        if isinstance(e, ast.Attribute):
            a = self_attr(e, fr.selfname)
            if a is not None and isinstance(e.ctx, ast.Load):
                self.read(a, e, fr, st)
                target = self.resolve_method(a, None)
                if target is not None and target[2] == "property":
                    # a property read during construction runs its getter now
                    return self.call_function(target[0], target[1], st, fr.depth + 1, fr.guarded)
                return st
            return self.expr(e.value, st, fr)
        if isinstance(e, ast.Call):
            return self.call(e, st, fr)
        if isinstance(e, ast.BoolOp):
            # later operands run only when earlier ones are truthy (and) / falsy (or): they are
            # evaluated on the states that survive that fact; the expression as a whole can end
            # after any operand, so what it assigns (a walrus, a helper call) joins all of them
            pol = isinstance(e.op, ast.And)
            facts = fr
            cur, ends, added = st, [], set()
            for v in e.values:
                cur = self.expr(v, cur, facts)
                ends += cur
                before = {c for x in cur for c in x.conds}
                cur = self.assume(v, pol, cur, fr)
                added |= {c for x in cur for c in x.conds} - before
                facts = replace(fr, known=facts.known | frozenset(implied_attrs(v, pol, fr.selfname)))
            # afterwards no operand's truth is known: drop exactly the facts this expression assumed
            return merge([State(x.assigned, x.conds - added) for x in ends])
        if isinstance(e, ast.IfExp):
            st = self.expr(e.test, st, fr)
            a = self.expr(e.body, self.assume(e.test, True, st, fr),
                          replace(fr, known=fr.known | frozenset(implied_attrs(e.test, True, fr.selfname))))
            b = self.expr(e.orelse, self.assume(e.test, False, st, fr),
                          replace(fr, known=fr.known | frozenset(implied_attrs(e.test, False, fr.selfname))))
            return merge(a + b)
        if isinstance(e, ast.NamedExpr):
            st = self.expr(e.value, st, fr)
            return self.store(e.target, st, fr)
        return self.expr_children(e, st, fr)

    def read(self, attr: str, node: ast.Attribute, fr: Frame, st: list[State]) -> None:
        if fr.guarded or attr in fr.known:
            return
        self.on_read(attr, node, fr, st)

    def call(self, c: ast.Call, st: list[State], fr: Frame) -> list[State]:
        f = dotted(c.func) or ""
        sn = fr.selfname
        # arguments first
        for a in c.args:
            st = self.expr(a.value if isinstance(a, ast.Starred) else a, st, fr)
        for k in c.keywords:
            st = self.expr(k.value, st, fr)
        if not st:
            return st
        # setattr(self, "x", v) / object.__setattr__(self, "x", v)
        if f in ("setattr", "object.__setattr__") and len(c.args) >= 2 and _is_self(c.args[0], sn):
            k = c.args[1]
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                return [x.add(k.value) for x in st]
            return st
        if f == "delattr" and len(c.args) == 2 and _is_self(c.args[0], sn) and \
                isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str):
            a = c.args[1].value
            self.deleted.add(a)
            self.del_log.append(a)
            return [x.remove(a) for x in st]
        if f in ("getattr",) and len(c.args) == 2 and _is_self(c.args[0], sn):
            k = c.args[1]
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                fake = ast.Attribute(value=c.args[0], attr=k.value, ctx=ast.Load(), lineno=c.lineno,
                                     col_offset=c.col_offset)
                self.read(k.value, fake, fr, st)
            return st
        # self.register_buffer("x", ...)
        if f.startswith(sn + ".") and f.count(".") == 1:
            name = f.split(".", 1)[1]
            if name in REGISTER_METHODS and c.args and isinstance(c.args[0], ast.Constant):
                return [x.add(str(c.args[0].value)) for x in st]
            target = self.resolve_method(name, None)
            if target is not None:
                cls, fn, kind = target
                if kind == "method":
                    if name in cls.noreturn_methods:
                        return []
                    return self.call_function(cls, fn, st, fr.depth + 1, fr.guarded, c)
                return st
            # Thread.start() during construction: run() begins now, concurrently with the rest of
            # __init__, so its reads happen here; what it assigns may not have happened yet
            if name == "start" and any(getattr(b, "kind", None) == "thread" for b in self.mro):
                run = self.resolve_method("run", None)
                if run is not None and run[2] == "method":
                    self.call_function(run[0], run[1], st, fr.depth + 1, fr.guarded)
            # not a known method: a read of self.<name> (maybe a callable attribute)
            self.read(name, c.func, fr, st)  # type: ignore[arg-type]
            return st
        # super().__init__(...) / super().helper(...)
        if isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Call) and \
                dotted(c.func.value.func) == "super":
            name = c.func.attr
            after = fr.cls
            sargs = c.func.value.args
            if sargs:  # super(Named, self): start after Named, not after the defining class
                named = self.resolve_init_class(fr.cls, dotted(sargs[0]) or "")
                if named is not None and not isinstance(named, str):
                    after = named
            target = self.resolve_method(name, after)
            if target is None:
                if name == "__init__":
                    self.external_init_ran = True
                return st
            cls, fn, kind = target
            if kind == "method":
                return self.call_function(cls, fn, st, fr.depth + 1, fr.guarded, c)
            return st
        # Base.__init__(self, ...) / Base.helper(self, ...) / Base.__init__(self=self, ...)
        self_kw = next((k.arg for k in c.keywords if k.arg and _is_self(k.value, sn)), None) if not c.args else None
        if isinstance(c.func, ast.Attribute) and (c.args and _is_self(c.args[0], sn) or self_kw):
            base = self.resolve_init_class(fr.cls, dotted(c.func.value) or "")
            if base is not None and not isinstance(base, str):
                fn = base.methods.get(c.func.attr)
                target = (base, fn) if fn is not None else self.resolve_method(c.func.attr, base, inclusive=True)
                if target is not None and (not self_kw or first_param(target[1]) == self_kw):
                    if self_kw:  # the instance is passed by name: the other keywords bind as usual
                        c = ast.Call(func=c.func, args=[], keywords=[k for k in c.keywords if k.arg != self_kw])
                    return self.call_function(target[0], target[1], st, fr.depth + 1, fr.guarded, c, not self_kw)
                return st
            if c.func.attr == "__init__":
                self.external_init_ran = True
                return st
        # a closure defined earlier in this function: run its body here
        if isinstance(c.func, ast.Name) and c.func.id in fr.local_funcs:
            local = fr.local_funcs[c.func.id]
            key = (fr.cls.key, "<closure>", id(local))  # by node: nested closures may share a name
            if key in self.stack:
                return [] if not _deletes(local) else st
            if fr.depth < MAX_DEPTH:
                self.stack.append(key)
                try:
                    inner = replace(fr, depth=fr.depth + 1, local_funcs=dict(fr.local_funcs),
                                    consts={})  # the closure's own names are not the caller's
                    flow = self.block(local.body, st, inner)
                    return _forget_locals(merge(flow.normal + flow.returns), st, local, fr.selfname)
                finally:
                    self.stack.pop()
        # evaluate the callee expression (reads in it), then noreturn and escapes
        if not isinstance(c.func, ast.Name):
            st = self.expr(c.func, st, fr)
        if f in NORETURN_CALLS or self.is_noreturn_call(c, fr):
            return []
        if any(_is_self(a, sn) for a in c.args) or any(_is_self(k.value, sn) for k in c.keywords):
            self.on_escape(c, fr)
        return st


def _compose(entries: list[State], rel: list[State], absolute: bool) -> list[State]:
    """Entry states followed by a summary's states (relative to an empty entry, or absolute),
    leaving out pairs whose conditions contradict each other."""
    out = []
    for s in entries:
        for r in rel:
            if any(s.contradicts(c[0], c[1]) for c in r.conds):
                continue
            out.append(State(r.assigned if absolute else s.assigned | r.assigned, s.conds | r.conds))
    return merge(out)


def _join(flows: list[Flow]) -> Flow:
    out = Flow()
    for f in flows:
        out.normal += f.normal
        out.returns += f.returns
        out.breaks += f.breaks
        out.continues += f.continues
    out.normal = merge(out.normal)
    return out


def _catches_attribute_error(h: ast.ExceptHandler) -> bool:
    if h.type is None:
        return True
    names = []
    if isinstance(h.type, ast.Tuple):
        names = [dotted(e) or "" for e in h.type.elts]
    else:
        names = [dotted(h.type) or ""]
    return any(n.split(".")[-1] in ("AttributeError", "Exception", "BaseException") for n in names)


def _irrefutable(p: ast.pattern) -> bool:
    if isinstance(p, ast.MatchAs):
        return p.pattern is None or _irrefutable(p.pattern)
    if isinstance(p, ast.MatchOr):
        return any(_irrefutable(x) for x in p.patterns)
    return False
