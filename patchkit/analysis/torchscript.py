"""TorchScript compiles every branch of a scripted method. A read in ``forward`` that a test of a
module attribute keeps off the construction paths lacking the attribute is safe in Python, but
``torch.jit.script`` compiles it for every instance: scripting a module built along such a path
fails ("Module 'Block' has no attribute 'norm2_proj'": timm's TNT ``Block`` with ``legacy=True``,
torch_geometric's ``HeteroLinear`` with pyg-lib installed). Judged only in packages that use
TorchScript (uses_torchscript), and never for tests TorchScript folds itself (``Final`` or ``__constants__``
attributes, ``is None`` tests, ``isinstance``, ``hasattr``, ``torch.jit.is_scripting()``)."""
from __future__ import annotations

import ast
import re
from typing import Optional

from .astutil import decorator_name, fast_walk, memo_on
from .classindex import TORCHSCRIPT_TOKEN, header_tokens, mentions_torchscript
from .conditions import norm_test, split_test
from .severity import _fuzzy

#: decorators that keep a method out of compilation
_NOT_COMPILED = {"ignore", "unused"}
#: tests TorchScript evaluates while compiling, dropping the other branch: ``is None`` against a
#: module attribute's static type (timm's fix for TNT), ``isinstance``, ``hasattr``, is_scripting()
_FOLDED = re.compile(r"is_scripting|is_tracing|TYPE_CHECKING|\bis (?:not )?None\b|\bisinstance\(|\bhasattr\(")


def is_torch_module(f) -> bool:
    """The MRO reaches ``torch.nn.Module`` (a library base of kind "module")."""
    return any(getattr(e, "kind", None) == "module" for e in f.externals)


def _decorated_out(fn: ast.FunctionDef) -> bool:
    return any(decorator_name(d).split(".")[-1] in _NOT_COMPILED for d in fn.decorator_list)


def _exported(fn: ast.FunctionDef) -> bool:
    return any(decorator_name(d).endswith("jit.export") for d in fn.decorator_list)


def compiled_method(f, fn: ast.FunctionDef) -> bool:
    """``fn`` is compiled by ``torch.jit.script``: ``forward``, an ``@torch.jit.export`` method, or a
    method either of them calls on ``self`` (recursively), unless decorated out of it."""
    if _decorated_out(fn):
        return False
    if fn.name == "forward" or _exported(fn):
        return True
    return fn.name in _compiled_names(f)


def _compiled_names(f) -> frozenset:
    """The method names compiled for the class of ``f`` (its MRO), computed once per class."""
    def compute() -> frozenset:
        methods: dict = {}
        for c in f.classes:  # the MRO order: the first definition of a name is the one that runs
            for name, fn in c.methods.items():
                methods.setdefault(name, fn)
        todo = [n for n, fn in methods.items() if (n == "forward" or _exported(fn)) and not _decorated_out(fn)]
        seen = set(todo)
        while todo:
            fn = methods[todo.pop()]
            me = fn.args.args[0].arg if fn.args.args else None
            for node in fast_walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        isinstance(node.func.value, ast.Name) and node.func.value.id == me:
                    name = node.func.attr
                    if name in methods and name not in seen and not _decorated_out(methods[name]):
                        seen.add(name)
                        todo.append(name)
        return frozenset(seen)
    return memo_on(f, "_pk_compiled", compute) if f.classes else frozenset()


def folded_attrs(f) -> frozenset:
    """Attributes TorchScript treats as constants: named in ``__constants__`` or annotated
    ``Final`` in a class body of the MRO; computed once per class."""
    return memo_on(f, "_pk_folded", lambda: _folded(f))


def _folded(f) -> frozenset:
    out: set = set()
    for c in f.classes:
        for st in c.node.body:
            if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__constants__"
                                                  for t in st.targets):
                out |= {e.value for e in fast_walk(st.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and "Final" in ast.unparse(st.annotation):
                out.add(st.target.id)
    return frozenset(out)


def _tested_attrs(fn: ast.FunctionDef, selfname: str) -> frozenset:
    """The normalised tests of ``if``/conditional expressions in ``fn`` that read ``self.<a>``."""
    def compute():
        out = set()
        for n in fast_walk(fn):
            if isinstance(n, (ast.If, ast.IfExp)):
                for part in (n.test.values if isinstance(n.test, ast.BoolOp) else [n.test]):
                    node, _pol = split_test(part)
                    if any(isinstance(x, ast.Attribute) and isinstance(x.value, ast.Name) and x.value.id == selfname
                           for x in fast_walk(node)):
                        out.add(_fuzzy(norm_test(node, selfname)))
        return frozenset(out)
    return memo_on(fn, "_pk_tested_self", compute)


def compiled_exclusion(an, f, fn: ast.FunctionDef, selfname: str, read_conds, missing) -> Optional[tuple[str, bool]]:
    """(test, value on the paths that lack the attribute) when the only thing keeping ``read`` off
    those paths is a test of a module attribute in a compiled method of a TorchScript package;
    else None."""
    if not missing or not is_torch_module(f) or not compiled_method(f, fn) or not uses_torchscript(an, f):
        return None
    if any(_FOLDED.search(key) for key, _pol in read_conds):
        return None
    tested, folded = _tested_attrs(fn, selfname), folded_attrs(f)
    first = None
    for s in missing:
        hit = None
        for key, pol in read_conds:
            fk = _fuzzy(key)
            if fk not in tested or re.match(r"\w+", fk).group(0) in folded:
                continue
            c = next((c for c in s.conds if (c.key == key or _fuzzy(c.key) == fk) and c.holds != pol), None)
            if c is not None:
                hit = (key, c.holds)
                break
        if hit is None:
            return None  # some path is kept off by something else (an argument, a local): not this case
        first = first or hit
    return first


def uses_torchscript(an, f) -> bool:
    """The class's package is written for TorchScript: at least MIN_SHARE of its modules with class
    headers (and two or more) use scripting-only features (timm 47 %, torch_geometric 2.7-4 %;
    vLLM, SGLang and transformers, which never script their models, 0.1-0.3 %). A lone module,
    outside any package, by its own text."""
    mod = f.classes[0].module if f.classes else None
    if mod is None:
        return False
    project = an.project
    top = mod.rel.split("/")[0] if "/" in mod.rel else ""
    if not top or project.root is None:
        return memo_on(mod, "_pk_torchscript", lambda: mentions_torchscript(mod.source))
    memo = project.__dict__.setdefault("_torchscript", {})
    if top not in memo:
        index = header_tokens(project.root, top)
        n = sum(TORCHSCRIPT_TOKEN in toks for toks in index.values())
        memo[top] = n >= 2 and n >= MIN_SHARE * len(index)
    return memo[top]


#: the share of a package's modules that must use scripting-only features
MIN_SHARE = 0.01
