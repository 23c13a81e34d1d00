"""Qualified anchors on libcst: module -> class -> method -> statement shape.

There is deliberately no way to say "the first ``__init__`` in the file": every lookup names
its class, and a missing class, method or statement raises AnchorNotFound naming the file,
the class, the method and the nearest existing names.
"""
from __future__ import annotations

import difflib
import functools
import textwrap
from typing import Callable, Optional, Sequence, Union

import libcst as cst
import libcst.matchers as m

from .ftypes import AnchorNotFound, TargetSyntaxError

Stmt = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]


def parse(rel: str, source: str) -> cst.Module:
    """Parse target source; a syntax error names ``file:line``. libcst trees are immutable, so
    parses of the same text are shared (planning, transforming and checking read one file often)."""
    return _parse_cached(rel, source)


@functools.lru_cache(maxsize=32)
def _parse_cached(rel: str, source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise TargetSyntaxError(f"{rel}:{exc.raw_line}:{exc.raw_column}: syntax error: {exc.message}") from None


def _nearest(name: str, options: Sequence[str]) -> str:
    lower = {o.lower(): o for o in options}
    close = [lower[c] for c in difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.5)]
    if close:
        return "nearest: " + ", ".join(repr(c) for c in close)
    return "it has: " + (", ".join(repr(o) for o in list(options)[:8]) or "nothing")


def classes(module: cst.Module) -> dict[str, cst.ClassDef]:
    """Top-level classes by name (a dotted ``Outer.Inner`` reaches nested ones via find_class)."""
    return {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}


def find_class(rel: str, module: cst.Module, qualname: str) -> cst.ClassDef:
    scope: Sequence[cst.CSTNode] = module.body
    found: Optional[cst.ClassDef] = None
    for part in qualname.split("."):
        options = {s.name.value: s for s in scope if isinstance(s, cst.ClassDef)}
        if part not in options:
            raise AnchorNotFound(f"{rel}: no class '{qualname}'; {_nearest(part, options)}")
        found = options[part]
        scope = found.body.body
    assert found is not None
    return found


def methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}


def find_method(rel: str, module: cst.Module, cls: str, method: str) -> cst.FunctionDef:
    klass = find_class(rel, module, cls)
    options = methods(klass)
    if method not in options:
        raise AnchorNotFound(f"{rel}: class {cls} has no method '{method}'; {_nearest(method, options)}")
    return options[method]


def has_method(module: cst.Module, cls: str, method: str) -> bool:
    try:
        find_method("", module, cls, method)
        return True
    except AnchorNotFound:
        return False


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def statements(src: str) -> list[Stmt]:
    """Parse a snippet (any indentation) into statements ready to insert."""
    return list(cst.parse_module(textwrap.dedent(src).strip("\n") + "\n").body)


def walk_statements(node: cst.CSTNode):
    """Every statement inside ``node`` (recursively through compound statements), in order."""
    body = getattr(node, "body", None)
    seq: Sequence[cst.CSTNode]
    if isinstance(body, cst.BaseSuite):
        seq = body.body if isinstance(body, cst.IndentedBlock) else [body]
    elif isinstance(body, (list, tuple)):
        seq = body
    else:
        seq = []
    for s in seq:
        if isinstance(s, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            yield s
            yield from walk_statements(s)
    for attr in ("orelse", "finalbody"):
        sub = getattr(node, attr, None)
        if sub is not None:
            if isinstance(sub, (cst.If, cst.Else, cst.Finally)):
                if isinstance(sub, cst.If):
                    yield sub
                yield from walk_statements(sub)
    for h in getattr(node, "handlers", ()) or ():
        yield from walk_statements(h)


# ------------------------------------------------------------------- statement shapes
class Shape:
    """A predicate on a statement plus the text that an error shows for it."""

    def __init__(self, text: str, pred: Callable[[Stmt], bool]):
        self.text = text
        self.pred = pred

    def __call__(self, stmt: Stmt) -> bool:
        return self.pred(stmt)


def assigns_self_attr(attr: str) -> Shape:
    """``self.<attr> = ...`` (plain or annotated assignment)."""
    target = m.Attribute(value=m.Name("self"), attr=m.Name(attr))

    def pred(s: Stmt) -> bool:
        if not isinstance(s, cst.SimpleStatementLine):
            return False
        for small in s.body:
            if isinstance(small, cst.Assign) and any(m.matches(t.target, target) for t in small.targets):
                return True
            if isinstance(small, cst.AnnAssign) and m.matches(small.target, target):
                return True
        return False

    return Shape(f"self.{attr} = ...", pred)


def contains_code(fragment: str, compound: bool = True) -> Shape:
    """A statement whose own source (first line for compound statements) contains ``fragment``."""

    def pred(s: Stmt) -> bool:
        if isinstance(s, cst.SimpleStatementLine):
            return fragment in code(s)
        if not compound:
            return False
        header = code(s).split(":\n", 1)[0]
        return fragment in header

    return Shape(f"statement containing '{fragment}'", pred)


def find_stmt(rel: str, owner: cst.CSTNode, shape: Shape, where: str) -> Stmt:
    for s in walk_statements(owner):
        if shape(s):
            return s
    raise AnchorNotFound(f"{rel}: {where} has no statement of shape '{shape.text}' (upstream drifted?)")


def contains_stmt(owner: cst.CSTNode, shape: Shape) -> bool:
    return any(shape(s) for s in walk_statements(owner))


# ------------------------------------------------------------------- rewriting
class _Insert(cst.CSTTransformer):
    def __init__(self, anchor: cst.CSTNode, new: Sequence[Stmt], after: bool, replace: bool = False):
        self.anchor, self.new, self.after, self.replace = anchor, list(new), after, replace
        self.done = False

    def _splice(self, original_body, updated_body):
        out = []
        for orig, upd in zip(original_body, updated_body):
            if orig is self.anchor:
                self.done = True
                if self.replace:
                    out.extend(self.new)
                elif self.after:
                    out.extend([upd, *self.new])
                else:
                    out.extend([*self.new, upd])
            else:
                out.append(upd)
        return out

    def leave_IndentedBlock(self, original_node, updated_node):
        if any(s is self.anchor for s in original_node.body):
            return updated_node.with_changes(body=self._splice(original_node.body, updated_node.body))
        return updated_node

    def leave_Module(self, original_node, updated_node):
        if any(s is self.anchor for s in original_node.body):
            return updated_node.with_changes(body=self._splice(original_node.body, updated_node.body))
        return updated_node


def _rewrite_within(node, anchor, t: "_Insert"):
    """Apply ``t`` to the smallest of module / top-level statement / class-body statement that holds
    ``anchor`` and splice the result back: rewriting a 6,000-line class for one line is slow."""
    if isinstance(node, cst.Module):
        if any(x is anchor for x in node.body):
            return node.visit(t)
        body = list(node.body)
        for i, top in enumerate(body):
            if _contains(top, anchor):
                body[i] = _rewrite_within(top, anchor, t)
                break
        return node.with_changes(body=body)
    if isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
        inner = list(node.body.body)
        if any(x is anchor for x in inner):
            return node.with_changes(body=node.body.with_changes(body=t._splice(inner, inner)))
        for i, member in enumerate(inner):
            if _contains(member, anchor):
                inner[i] = _rewrite_within(member, anchor, t)
                return node.with_changes(body=node.body.with_changes(body=inner))
    return node.visit(t)


def _contains(node: cst.CSTNode, anchor: cst.CSTNode) -> bool:
    """Statement ``anchor`` lies within ``node`` (statements only: no expression is visited)."""
    if node is anchor:
        return True
    return any(s is anchor for s in walk_statements(node))


def insert(module: cst.Module, anchor: Stmt, new: Sequence[Stmt], *, after: bool = True,
           replace: bool = False) -> cst.Module:
    """Insert ``new`` before/after (or instead of) the statement ``anchor`` found in ``module``.
    Only the top-level statement that holds the anchor is rebuilt."""
    t = _Insert(anchor, new, after, replace)
    out = _rewrite_within(module, anchor, t)
    if not t.done:
        raise AnchorNotFound("internal: anchor statement vanished while rewriting")
    return out  # type: ignore[return-value]


def add_method(module: cst.Module, cls: cst.ClassDef, src: str, after: Optional[str] = None) -> cst.Module:
    """Add a method (source text) to ``cls``, after the method named ``after`` or at the end."""
    fn = statements(textwrap.dedent(src))
    body = list(cls.body.body)
    idx = len(body)
    if after is not None:
        for i, s in enumerate(body):
            if isinstance(s, cst.FunctionDef) and s.name.value == after:
                idx = i + 1
    blank = cst.EmptyLine(indent=False, whitespace=cst.SimpleWhitespace(""))
    fn = [f.with_changes(leading_lines=[blank]) if isinstance(f, cst.FunctionDef) else f for f in fn]
    body[idx:idx] = fn
    new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
    if any(s is cls for s in module.body):
        return module.with_changes(body=[new_cls if s is cls else s for s in module.body])
    return module.deep_replace(cls, new_cls)  # type: ignore


def append_toplevel(module: cst.Module, src: str) -> cst.Module:
    """Append module-level statements (source text) after two blank lines."""
    blank = cst.EmptyLine(indent=False, whitespace=cst.SimpleWhitespace(""))
    new = statements(src)
    if new:
        new[0] = new[0].with_changes(leading_lines=[blank, blank])
    return module.with_changes(body=[*module.body, *new])
