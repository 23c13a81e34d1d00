"""What a patch adds that pyflakes objects to: names used but defined nowhere, imports never used.

A codemod can splice text whose names resolve in one release and not in the next (a renamed
import upstream); the file still compiles and the analyzer still passes, and the server dies on
the first call. ``new_problems`` compares the patched text with the pristine one, so only what the
patch introduced counts (upstream's own unused imports stay upstream's).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from pyflakes import checker, messages

#: the pyflakes messages that mean a patched file is broken or carries dead weight
#: (RedefinedWhileUnused is left out: ``bound = None`` then ``def bound(...)`` under a branch is
#: ordinary code, and pyflakes flagged exactly that in patch 1.1.0's spliced text)
KINDS = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport,
         messages.UnusedImport, messages.ImportShadowedByLoopVar)


@dataclass(frozen=True)
class LintProblem:
    rel: str
    line: int
    kind: str
    #: the name concerned, e.g. "CudaGraphRunner"
    name: str
    text: str

    def __str__(self) -> str:
        return f"{self.rel}:{self.line}: {self.text}"


def problems(rel: str, text: str) -> list[LintProblem]:
    """pyflakes' objections of the kinds above (a file that does not parse has none here: the
    compile check reports it)."""
    import ast
    try:
        tree = ast.parse(text, filename=rel)
    except (SyntaxError, ValueError):
        return []
    w = checker.Checker(tree, filename=rel)
    out = []
    for m in w.messages:
        if isinstance(m, KINDS):
            name = str(m.message_args[0]) if m.message_args else ""
            out.append(LintProblem(rel, m.lineno, type(m).__name__, name, m.message % m.message_args))
    return sorted(out, key=lambda p: p.line)


def new_problems(rel: str, before: str, after: str) -> list[LintProblem]:
    """Problems in ``after`` that ``before`` does not have (compared by kind and name, counted, so
    that moved lines do not count and a second undefined use of a name does)."""
    seen = Counter((p.kind, p.name) for p in problems(rel, before)) if before else Counter()
    out = []
    for p in problems(rel, after):
        key = (p.kind, p.name)
        if seen[key]:
            seen[key] -= 1
            continue
        out.append(p)
    return out
