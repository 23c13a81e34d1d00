"""Private name mangling, as Python does it: inside ``class C``, an identifier ``__x`` (two leading
underscores, not a dunder) is ``_C__x`` wherever it appears in the class body (attribute names,
methods, names), so ``def __verify(self)`` is read back as ``self._C__verify`` and a subclass that
reads ``self.__verify`` reads ``_Sub__verify``, which does not exist. Applied to each parsed tree
once, in place, before the class index is built; decorators and bases are evaluated outside the
class body and are left alone. The text-based scans mangle what they find with :func:`mangled`."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .fastre import Bounded


def is_private(name: str) -> bool:
    return name.startswith("__") and not name.endswith("__")


_MANGLED = re.compile(r"_([A-Za-z0-9]\w*?)(__\w*[A-Za-z0-9]_?)")


def private_part(name: str) -> Optional[str]:
    """``__x`` of a mangled ``_C__x`` (None for any other name)."""
    m = _MANGLED.fullmatch(name)
    return m.group(2) if m else None


def as_written(f):
    """Finding ``f`` with a mangled attribute named as the source writes it: ``self.__callbacks``
    (bleak's ``BleakClientP4Android``), not ``self._BleakClientP4Android__callbacks``."""
    from dataclasses import replace
    part = private_part(f.attr)
    if part is None:
        return f
    return replace(f, attr=part, message=f.message.replace(f"self.{f.attr}", f"self.{part}"))


def mangled(cls: str, name: str) -> str:
    """``name`` as written inside ``class cls``."""
    stripped = cls.lstrip("_")
    return f"_{stripped}{name}" if stripped and is_private(name) else name


class _Outside(ast.NodeVisitor):
    """Outside any class: nothing is mangled; each class body gets its own name's mangling (the
    decorators, bases and keywords of a class statement belong to the enclosing scope)."""

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for n in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(n)
        inner = _InClass(node.name)
        for s in node.body:
            inner.visit(s)


class _InClass(_Outside):
    def __init__(self, cls: str):
        self.cls = cls

    def visit_FunctionDef(self, node) -> None:
        node.name = mangled(self.cls, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Attribute(self, node: ast.Attribute) -> None:
        node.attr = mangled(self.cls, node.attr)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        node.id = mangled(self.cls, node.id)


#: an identifier with two leading underscores (dunders are filtered after the match)
_PRIVATE = Bounded(r"__[A-Za-z0-9_]*[A-Za-z0-9]_?(?!\w)")


def mangle_tree(tree: ast.Module, source: str) -> None:
    """Mangle every class body of ``tree`` (only when ``source`` has a private name at all: most
    files have only dunders, and the walk is not free)."""
    if getattr(tree, "_pk_mangled", False) or not _PRIVATE.search(source):
        return
    _Outside().visit(tree)
    tree._pk_mangled = True  # type: ignore[attr-defined]
