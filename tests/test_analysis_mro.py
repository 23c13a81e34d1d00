"""The analyzer's method resolution order is Python's: generated class hierarchies (tree classes,
some with no ``__init__``, some deriving from ``abc.ABC``, a library class) are executed and their
``__mro__`` compared with the analyzer's linearisation (xinference's ``VLLMModel(WeightCachedModel,
LLM)`` with ``LLM(abc.ABC)`` once put ``object`` before ``LLM`` and lost ``LLM.__init__``)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import given, settings, strategies as st

from patchkit.analysis.checker import Analyzer, Settings
from patchkit.analysis.model import ClassInfo
from patchkit.analysis.project import Project


@st.composite
def hierarchies(draw):
    """Source of up to 7 classes C0..Cn, each with up to 3 bases among earlier classes and
    ``abc.ABC``, in an order Python accepts."""
    n = draw(st.integers(1, 7))
    lines = ["import abc", ""]
    for i in range(n):
        pool = [f"C{j}" for j in range(i)] + ["abc.ABC"]
        bases = draw(st.lists(st.sampled_from(pool), max_size=3, unique=True))
        body = draw(st.sampled_from(["pass", "def __init__(self):\n        pass"]))
        lines.append(f"class C{i}({', '.join(bases)}):\n    {body}\n" if bases else f"class C{i}:\n    {body}\n")
    return "\n".join(lines), n


def _python_mros(src: str, n: int):
    ns: dict = {}
    try:
        exec(compile(src, "<gen>", "exec"), ns)
    except TypeError:  # no consistent MRO: Python refuses the class
        return None
    return {f"C{i}": [c.__name__ for c in ns[f"C{i}"].__mro__] for i in range(n)}


@settings(max_examples=150, deadline=None)
@given(hierarchies())
def test_linearisation_matches_python(case):
    src, n = case
    want = _python_mros(src, n)
    if want is None:
        return
    project = Project(Path("/nonexistent-root"))
    mod = project.add_source("pkg/gen.py", src)
    an = Analyzer(project, Settings())
    for name, mro in want.items():
        got = [c.qualname.split(".")[-1] if isinstance(c, ClassInfo) else c.name.split(".")[-1]
               for c in an.facts(mod.classes[name]).linear]
        assert got == mro, f"{name}: {got} != {mro}\n{textwrap.indent(src, '  ')}"
