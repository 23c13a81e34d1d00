"""astutil.own_nodes: the one walker of a scope's own code that handedto, injection and openness
share (each used to carry its own copy, and they had drifted apart)."""
import ast
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from patchkit.analysis.astutil import FUNCTION_NODES, SCOPE_NODES, children, own_nodes
from patchkit.analysis.injection import _own_nodes as injection_own_nodes

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "patchkit").rglob("*.py"))


def reference(roots, stop):
    """What own_nodes must yield, by another route: every node below the roots whose chain of
    ancestors (below the roots) has no node of a ``stop`` type."""
    out = []

    def visit(n):
        out.append(n)
        if n.__class__ in stop:
            return
        for c in children(n):
            visit(c)

    for r in (children(roots) if isinstance(roots, ast.AST) else roots):
        visit(r)
    return out


def ids(nodes):
    return sorted(id(n) for n in nodes)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SOURCES), st.sampled_from([SCOPE_NODES, FUNCTION_NODES]))
def test_own_nodes_is_the_scope_s_own_code(path, stop):
    tree = ast.parse(path.read_text())
    assert ids(own_nodes(tree, stop)) == ids(reference(tree, stop))
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))][:20]:
        assert ids(own_nodes(fn.body, stop)) == ids(reference(fn.body, stop))


@pytest.mark.parametrize("stop,inner_seen", [(SCOPE_NODES, False), (FUNCTION_NODES, True)])
def test_nested_scopes_are_yielded_but_not_entered(stop, inner_seen):
    fn = ast.parse(
        "def f(a):\n"
        "    x = C()\n"
        "    def g():\n        y = D()\n"
        "    class K:\n        z = E()\n"
        "    h = lambda: F()\n").body[0]
    nodes = list(own_nodes(fn.body, stop))
    names = {n.func.id for n in nodes if isinstance(n, ast.Call)}
    assert "C" in names and "D" not in names and "F" not in names
    assert ("E" in names) is inner_seen
    assert any(isinstance(n, ast.FunctionDef) and n.name == "g" for n in nodes)
    assert any(isinstance(n, ast.ClassDef) for n in nodes) and any(isinstance(n, ast.Lambda) for n in nodes)
    assert not any(isinstance(n, (ast.Load, ast.Store, ast.Add)) for n in nodes)


def test_children_lists_are_not_consumed():
    """own_nodes must not pop from a list that children() or a node's body owns."""
    fn = ast.parse("def f():\n    a = 1\n    b = 2\n").body[0]
    before = len(fn.body)
    list(own_nodes(fn.body))
    list(own_nodes(fn))
    assert len(fn.body) == before


# the three walkers own_nodes replaced, as they were (session 35): each call site must see the same nodes
def old_handedto(scope):
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


def old_openness(fn):
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))


def old_injection(fn):
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        todo += [c for c in children(n) if c.__class__ not in SCOPE_NODES]


def _real(nodes):
    """Without the context and operator leaves (own_nodes leaves them out) and the nested scope
    nodes themselves (yielded by some walkers, never entered by any): what the callers test."""
    return ids(n for n in nodes if not isinstance(n, (ast.expr_context, ast.operator, ast.boolop, ast.cmpop,
                                                      ast.unaryop)) and n.__class__ not in SCOPE_NODES)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(SOURCES))
def test_each_call_site_sees_what_its_old_walker_saw(path):
    tree = ast.parse(path.read_text())
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in scopes[:30]:
        assert _real(own_nodes(scope, FUNCTION_NODES)) == _real(old_handedto(scope))
        assert _real(own_nodes(scope)) == _real(old_openness(scope))
        if not isinstance(scope, ast.Module):
            assert _real(injection_own_nodes(scope)) == _real(old_injection(scope))
