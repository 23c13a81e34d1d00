"""Calls whose body does not run when they are made: a coroutine function called from sync code,
a generator function (the construction walk does not inline them)."""
from __future__ import annotations

import ast

from .astutil import decorator_name, memo_on


def starts_later(fn: ast.AST, fr) -> bool:
    """Sync code calling an ``async def`` only creates the coroutine: its body runs when it is
    awaited or scheduled, after construction (litellm's ``asyncio.create_task(self.periodic_flush())``
    in ``__init__`` before ``super().__init__()`` assigns what the loop reads). Calling a generator
    function only creates the generator: its body runs on the first ``next()`` (gunicorn's
    ``self.chunker = self.parse_chunked(unreader)`` in ``__init__`` before the limits it reads)."""
    return (isinstance(fn, ast.AsyncFunctionDef) and not isinstance(fr.fn, ast.AsyncFunctionDef)) or _is_generator(fn)


def _is_generator(fn: ast.AST) -> bool:
    """``fn``'s own body yields (a ``yield`` in a nested function or lambda does not count), and no
    ``@contextmanager`` makes it run on ``with`` entry."""
    def compute() -> bool:
        if any(decorator_name(d).split(".")[-1] in
               ("contextmanager", "asynccontextmanager") for d in getattr(fn, "decorator_list", ())):
            return False
        todo = list(ast.iter_child_nodes(fn))
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.Yield, ast.YieldFrom)):
                return True
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.extend(ast.iter_child_nodes(n))
        return False
    return memo_on(fn, "_pk_is_generator", compute)
