"""Conditions on construction paths and read sites: the text key of a branch test, the facts a
test gives when true or false, what a test says about which attributes exist, and the truth of
a test that constants decide. Shared by every walker (flow, reads)."""
from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING, NamedTuple, Optional

from .astutil import dotted
from .localconsts import UNKNOWN, value

if TYPE_CHECKING:
    from .state import Frame

#: where a path condition comes from
TEST = "test"    #: a branch test the path took (``if self.use_x:`` true)
VALUE = "value"  #: a constant the path stored (``self.disabled = True``): follows from a branch, is not one
EVENT = "event"  #: something that happened on the path: an exception caught, a loop run zero times, ...
#: the keys of the path events, by what they record
CAUGHT, SUPPRESSED, NO_CASE, ZERO_LOOP, ALT_CTOR = "<except>", "<with>", "<match>", "<loop>", "<alt>"
#: events that are holes (construction went on after an error, or nothing matched), never a mode
HOLES = frozenset({CAUGHT, SUPPRESSED, NO_CASE})


class Cond(NamedTuple):
    """A fact known on a construction path. Frozen and hashable: states keep them in frozensets,
    and two paths agree on a condition when ``(key, holds)`` agree."""

    #: normalised text of the test (``use_x``, ``x is None``; ``self.`` stripped), or an event key
    key: str
    #: the truth the path takes
    holds: bool
    #: the line where the path learnt it
    line: int
    #: the test as written, for messages
    text: str
    #: TEST, VALUE or EVENT
    origin: str = TEST

    @property
    def order(self) -> tuple:
        """Sort key of messages: stored values first (they explain the branch), then by line."""
        return (-self.line if self.origin == VALUE else self.line, self.key, self.holds)

    def renamed(self, key: str) -> "Cond":
        return self._replace(key=key)


class Fact(NamedTuple):
    """A fact known at a read site: the test ``key`` (normalised text) holds ``holds``."""

    key: str
    holds: bool


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


def _is_self(node: ast.expr, selfname: str) -> bool:
    return isinstance(node, ast.Name) and node.id == selfname


def const_truth(node: ast.expr) -> Optional[bool]:
    node, pol = split_test(node)
    if isinstance(node, ast.Constant):
        return bool(node.value) == pol
    if (dotted(node) or "").split(".")[-1] == "TYPE_CHECKING":
        return not pol
    return None


def handed_self_truth(test, fr) -> Optional[bool]:
    """``if client is self:`` in an ``__init__``, ``client`` one of its parameters: false while
    constructing. A fresh instance is not an argument of its own constructor call; it is one only
    when ``__new__`` handed back an existing object (``if isinstance(client, cls): return client``,
    nemoguardrails' ``InstrumentedHTTPClient``) or ``obj.__init__(obj)`` re-runs a finished one."""
    fn = fr.fn
    if getattr(fn, "name", None) != "__init__":
        return None
    node, pol = split_test(test)
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))):
        return None
    left, right = node.left, node.comparators[0]
    params = {a.arg for a in (fn.args.posonlyargs + fn.args.args)[1:] + fn.args.kwonlyargs}
    names = {getattr(left, "id", None), getattr(right, "id", None)}
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Name) and fr.selfname in names
            and (names - {fr.selfname}) & params):
        return None
    return (not isinstance(node.ops[0], ast.Is)) == pol


def frame_truth(test: ast.expr, fr: "Frame") -> Optional[bool]:
    """const_truth, the instance handed to its own ``__init__`` (handed_self_truth), plus tests of
    parameters the call site fixed (``if not use_dsa``, ``if mode is None``, ``if kind == "x"``)."""
    t = const_truth(test)
    if t is None:
        t = handed_self_truth(test, fr)
    if t is not None or not fr.consts:
        return t
    node, pol = split_test(test)
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
    v = value(node, fr.consts)  # a known name, d.get("k"), a or b, ... (localconsts)
    return None if v is UNKNOWN else bool(v) == pol


def _compare(v, op: ast.cmpop, w) -> Optional[bool]:
    """``v <op> w`` for two known constants (``is`` only against None/True/False), else None."""
    if isinstance(op, (ast.Is, ast.IsNot)):
        return (v is w) == isinstance(op, ast.Is) if w is None or isinstance(w, bool) else None
    if isinstance(op, (ast.Eq, ast.NotEq)):
        return (v == w) == isinstance(op, ast.Eq)
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(w, (tuple, list, set, frozenset)):
        return (v in w) == isinstance(op, ast.In)
    return None


def class_const_truth(test: ast.expr, selfname: str, consts: dict) -> Optional[bool]:
    """The truth of ``self.flag`` / ``not self.flag`` / ``self.flag is None`` / ``self.mode == "x"``
    when ``flag`` is a class attribute bound to a constant that nothing rebinds (``consts``)."""
    node, pol = split_test(test)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == selfname:
        return bool(consts[node.attr]) == pol if node.attr in consts else None
    if isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == selfname:
        key = f"{node.func.attr}()"
        return bool(consts[key]) == pol if key in consts else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Attribute) and \
            isinstance(node.left.value, ast.Name) and node.left.value.id == selfname and node.left.attr in consts \
            and isinstance(node.comparators[0], ast.Constant):
        r = _compare(consts[node.left.attr], node.ops[0], node.comparators[0].value)
        return None if r is None else r == pol
    return None


@functools.lru_cache(maxsize=65536)
def _key_expr(key: str) -> Optional[ast.expr]:
    """A read-site fact's normalised text as an expression (parsed once per distinct text)."""
    try:
        return ast.parse(key, mode="eval").body
    except SyntaxError:
        return None


def fact_contradicts_constants(key: str, holds: bool, consts, local_names) -> bool:
    """The read-site fact ``key == holds`` is false for a class whose constants are ``consts``
    (ClassConstants: class attributes bound to a constant that nothing rebinds), so the read never
    runs for that class: ``if self._NAME == "task":`` in metaflow's MetaflowObject, whose Flow,
    Run and Step subclasses bind ``_NAME`` to other strings. Names the function binds itself
    (``local_names``) are locals, not the class's."""
    node = _key_expr(key)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        name, op = node.left, node.ops[0]
        try:
            w = ast.literal_eval(node.comparators[0])  # a constant, also `-1` or a tuple
        except (ValueError, SyntaxError, TypeError):
            return False
    else:
        name, op, w = node, None, None
    if isinstance(name, ast.Call) and isinstance(name.func, ast.Name) and not name.args and not name.keywords \
            and op is None and name.func.id not in local_names and f"{name.func.id}()" in consts:
        return bool(consts[f"{name.func.id}()"]) != holds  # a stub method returning a constant
    if not (isinstance(name, ast.Name) and name.id not in local_names and name.id in consts):
        return False
    v = consts[name.id]
    truth = bool(v) if op is None else _compare(v, op, w)
    return truth is not None and truth != holds


def tested_self_attr(test: ast.expr, selfname: str) -> Optional[str]:
    """The attribute ``a`` a test of the forms class_const_truth decides reads (``self.a``, ``not
    self.a``, ``self.a is None``, ``self.a == "x"``), else None."""
    node, _pol = split_test(test)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant):
        node = node.left
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == selfname:
        return node.attr
    return None


def _type_of_self(node: ast.expr, selfname: str) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "__class__":
        return isinstance(node.value, ast.Name) and node.value.id == selfname
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and \
        len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == selfname


def class_name_truth(test: ast.expr, selfname: str, name: str, fact_form: bool = False) -> Optional[bool]:
    """The truth of ``self.__class__.__name__ == "X"`` / ``type(self).__name__ in ("X", "Y")`` (and
    their negations) for an instance whose exact class is called ``name``; None for other tests. A
    read-site fact (``fact_form``) spells ``self.__class__`` as ``__class__``; in source, a bare
    ``__class__`` is the defining class, not the instance's. paddle's ``Optimizer._maybe_refuse``
    returns unless ``self.__class__.__name__ == 'AdamW'``: dead for its AMPOptimizer."""
    node, pol = split_test(test)
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and
            isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))):
        return None
    left, right = node.left, node.comparators[0]
    if not (isinstance(left, ast.Attribute) and left.attr == "__name__" and (
            _type_of_self(left.value, selfname) or
            (fact_form and isinstance(left.value, ast.Name) and left.value.id == "__class__"))):
        return None
    if isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
            return None
        hit = right.value == name
    else:
        if not (isinstance(right, (ast.Tuple, ast.List, ast.Set)) and
                all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts)):
            return None
        hit = name in {e.value for e in right.elts}
    return (hit == isinstance(node.ops[0], (ast.Eq, ast.In))) == pol


def class_name_dead(conds, selfname: str, name: str) -> bool:
    """A read-site fact tests the instance's class name, and the class called ``name`` fails it."""
    for key, pol in conds:
        if isinstance(key, str) and "__name__" in key:
            node = _key_expr(key)
            t = class_name_truth(node, selfname, name, fact_form=True) if node is not None else None
            if t is not None and t != pol:
                return True
    return False


def exact_type_test(test: ast.expr, selfname: str) -> Optional[tuple[str, bool]]:
    """(class name, whether the test holds when the instance's exact class is that class) of
    ``self.__class__ is X`` / ``type(self) == X`` and their negations; None for other tests."""
    node, pol = split_test(test)
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and
            isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
        return None
    left, right = node.left, node.comparators[0]
    if _type_of_self(right, selfname):
        left, right = right, left
    name = dotted(right) if _type_of_self(left, selfname) else None
    if not name:
        return None
    return name, isinstance(node.ops[0], (ast.Is, ast.Eq)) == pol


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
