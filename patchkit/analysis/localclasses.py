"""Classes defined inside functions: a factory that subclasses a tree class and completes it from
its arguments (jupyter_client's ``forward_tunnel``: ``class SubHander(Handler): chain_host =
remote_host``, handed to a server that only ever builds that subclass). They are never judged
themselves (the module's ``classes`` stay as written at top level); they count as subclasses of
their bases, so a base read that such a subclass provides is judged as in a template base. Not in
test files: a test's local subclass is a fixture, not evidence of how the package builds the class."""
from __future__ import annotations

import ast

from .astutil import memo_on
from .model import ClassInfo, ModuleInfo
from .severity import is_test_path


def local_classes(mod: ModuleInfo) -> list[ClassInfo]:
    """The classes defined in the bodies of ``mod``'s functions and methods (not nested in another
    local class), each with the qualname ``<function>.<locals>.<Name>``; computed once per module."""
    def compute() -> list[ClassInfo]:
        if mod.external or is_test_path(mod.rel) or "class " not in mod.source:
            return []
        from .classbody import collect_class  # (classbody builds ClassInfo on the module: imported late)
        found: list[tuple[str, ast.ClassDef]] = []

        def visit(body, owner: str, in_function: bool) -> None:
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(node.body, f"{owner}{node.name}.<locals>.", True)
                elif isinstance(node, ast.ClassDef):
                    if in_function:
                        found.append((owner, node))
                    else:
                        visit(node.body, f"{owner}{node.name}.", False)
                else:
                    for field in ("body", "orelse", "finalbody", "handlers"):
                        sub = getattr(node, field, None)
                        if isinstance(sub, list):
                            visit(sub, owner, in_function)
                    if isinstance(node, ast.Match):
                        for case in node.cases:
                            visit(case.body, owner, in_function)
        visit(mod.tree.body, "", False)
        if not found:
            return []
        saved, mod.classes = mod.classes, {}
        try:
            tops: list[str] = []
            for owner, node in found:
                if f"{owner}{node.name}" in tops:  # a getter's and a setter's ``Impl``: one each
                    owner = f"{owner}{node.lineno}."
                tops.append(f"{owner}{node.name}")
                collect_class(mod, node, owner)
            return [mod.classes[q] for q in tops]
        finally:
            mod.classes = saved
    return memo_on(mod, "_pk_local_classes", compute)
