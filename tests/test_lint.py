"""patchkit/lint.py: what a patch adds that pyflakes objects to (undefined names, unused imports),
compared with the pristine file; and the engine's and the gate's use of it on a real release."""
from __future__ import annotations

import dataclasses
import re

import libcst as cst
import pytest
from hypothesis import given, settings, strategies as st

from patchkit import codemod as cm
from patchkit import engine, gate, registry
from patchkit.ftypes import AnchorNotFound, CheckFailed
from patchkit.lint import new_problems, problems
from patchkit.patchdef import Edit
from patches.dynamic_spec_disable import PATCH, RUNTIME, WORKER

UPSTREAM = '''\
import os
import sys
from typing import Optional


def main(argv: Optional[list] = None) -> int:
    return len(sys.argv if argv is None else argv)


class Worker:
    def __init__(self, server_args):
        self.server_args = server_args
'''


# ----------------------------------------------------------------------------- new_problems
def test_upstream_unused_import_is_not_the_patch_s():
    assert [p.name for p in problems("w.py", UPSTREAM)] == ["os"]
    after = UPSTREAM + "\n\ndef helper():\n    return main([])\n"
    assert new_problems("w.py", UPSTREAM, after) == []


def test_added_undefined_name_is_caught_with_its_line():
    after = UPSTREAM.replace("        self.server_args = server_args\n",
                             "        self.server_args = server_args\n        self.runner = CudaGraphRunner(self)\n")
    found = new_problems("w.py", UPSTREAM, after)
    assert [(p.kind, p.name) for p in found] == [("UndefinedName", "CudaGraphRunner")]
    assert found[0].line == after.splitlines().index("        self.runner = CudaGraphRunner(self)") + 1
    assert str(found[0]).startswith(f"w.py:{found[0].line}: ") and "CudaGraphRunner" in str(found[0])


def test_added_unused_import_is_caught():
    after = UPSTREAM.replace("import sys\n", "import sys\nimport json as _patch_json\n")
    found = new_problems("w.py", UPSTREAM, after)
    assert [(p.kind, p.name) for p in found] == [("UnusedImport", "json as _patch_json")]
    assert found[0].line == 3


def test_a_second_undefined_use_of_a_name_upstream_already_misses_counts():
    before = UPSTREAM + "\n\ndef a():\n    return missing_name\n"
    after = before + "\n\ndef b():\n    return missing_name\n"
    assert [p.name for p in new_problems("w.py", before, after)] == ["missing_name"]
    assert new_problems("w.py", before, before) == []


def test_unparsable_text_is_left_to_the_compile_check():
    assert problems("w.py", "def broken(:\n") == []


def test_created_file_is_checked_against_nothing():
    found = new_problems("new.py", "", "import os\n\nx = y\n")
    assert sorted((p.kind, p.name) for p in found) == [("UndefinedName", "y"), ("UnusedImport", "os")]


BLOCKS = [
    "def f{i}():\n    return undefined_{i}\n",
    "import json as unused_{i}\n",
    "def g{i}(x):\n    return x + {i}\n",
    "class C{i}:\n    attr = missing_{i}\n",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(BLOCKS), st.integers(0, 3)), min_size=1, max_size=12).flatmap(
    lambda blocks: st.tuples(st.just(blocks), st.permutations(range(len(blocks))),
                             st.lists(st.integers(0, 3), min_size=len(blocks), max_size=len(blocks)))))
def test_moved_lines_add_no_problem(args):
    """The same statements in another order, with blank lines and comments between: nothing new;
    one more undefined use on top: exactly that one."""
    blocks, order, gaps = args
    texts = [b.format(i=n * 100 + k) for k, (b, n) in enumerate(blocks)]
    before = "\n".join(texts)
    after = "".join("\n" * g + "# moved\n" + texts[i] for i, g in zip(order, gaps))
    assert new_problems("m.py", before, after) == []
    extra = after + "\n\ndef added():\n    return brand_new_name\n"
    assert [p.name for p in new_problems("m.py", before, extra)] == ["brand_new_name"]


# ----------------------------------------------------------------------------- the toy tree (offline) and a real release
def _broken(snippet: str, where: str = "init"):
    """The real patch, plus one edit that splices ``snippet`` into EAGLEWorkerV2.__init__ (or at
    module level): the kind of text a codemod leaves when a name it uses no longer resolves."""
    def transform(module: cst.Module) -> cst.Module:
        if where == "init":
            fn = cm.find_method(WORKER, module, "EAGLEWorkerV2", "__init__")
            return cm.insert(module, fn.body.body[0], cm.statements(snippet), after=True)
        return module.with_changes(body=list(module.body) + cm.statements(snippet))

    def applied(module: cst.Module) -> bool:
        return snippet.strip() in module.code

    extra = Edit(WORKER, "splice a broken statement", (), transform, applied)

    def select(version, read):
        strategy = PATCH.select(version, read)
        return dataclasses.replace(strategy, edits=strategy.edits + (extra,))

    return dataclasses.replace(PATCH, select=select)


def _snapshot(t) -> dict:
    return {p.relative_to(t.root).as_posix(): p.read_bytes() for p in t.root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("snippet,where,name", [
    ("self._probe = UndefinedProbeName(server_args)", "init", "UndefinedProbeName"),
    ("import json as _unused_probe", "module", "_unused_probe"),
])
def test_apply_refuses_a_patch_that_adds_a_lint_problem_and_writes_nothing(sglang_tree, snippet, where, name):
    t = sglang_tree.make()
    broken = _broken(snippet, where)
    dry = engine.apply(broken, t, dry_run=True, run_check=False)
    after = next(c.after for c in dry.changes if c.rel == WORKER)
    line = next(i for i, text in enumerate(after.splitlines(), 1) if snippet in text)
    before = _snapshot(t)
    with pytest.raises(CheckFailed) as info:
        engine.apply(broken, t)
    msg = str(info.value)
    assert "\n" not in msg and f"{WORKER}:{line}:" in msg and name in msg and "nothing written" in msg
    after_snapshot = _snapshot(t)
    assert {k: v for k, v in after_snapshot.items() if not k.startswith(".patchkit/")} == before
    assert not t.file(RUNTIME).exists()
    assert not (t.root / ".patchkit" / "journal.json").exists()
    # the real patch itself lints clean on the same tree
    engine.apply(PATCH, t)
    assert t.file(RUNTIME).exists()


def test_gate_fails_at_lint_when_the_broken_patch_was_applied_unchecked(sglang_tree):
    t = sglang_tree.make()
    engine.apply(_broken("self._probe = UndefinedProbeName(server_args)"), t, run_check=False)
    assert "UndefinedProbeName" in t.file(WORKER).read_text()
    res = gate.run(t)
    stage = res.failed_stage
    assert stage is not None and stage.name == "lint" and res.exit_code == 1, res.to_dict()
    assert WORKER in stage.detail and "UndefinedProbeName" in stage.detail
    assert [s.name for s in res.stages] == ["range", "hashes", "compile", "lint"]


def test_gate_lint_stage_passes_on_the_real_patch(sglang_tree):
    t = sglang_tree.make()
    engine.apply(registry.patch(PATCH.name), t)
    res = gate.run(t)
    lint = next(s for s in res.stages if s.name == "lint")
    assert lint.verdict == "pass", lint.detail


@pytest.mark.network
def test_renamed_import_upstream_is_an_anchor_error_naming_it(sglang_scratch):
    """Upstream renames the import the runtime takes from the worker module: apply refuses, naming
    it, instead of writing a runtime that fails at the first switch (the real release: the toy
    worker never calls CudaGraphRunner)."""
    t = sglang_scratch("0.5.12")
    path = t.file(WORKER)
    text = path.read_text()
    renamed = re.sub(r"\bCudaGraphRunner\b", "DecodeGraphRunner", text).replace(
        "import DecodeGraphRunner", "import CudaGraphRunner as DecodeGraphRunner")
    assert "import CudaGraphRunner as DecodeGraphRunner" in renamed and "DecodeGraphRunner(" in renamed
    assert new_problems(WORKER, text, renamed) == []  # upstream's rename is clean in itself
    path.write_text(renamed)
    before = _snapshot(t)
    with pytest.raises(AnchorNotFound) as info:
        engine.apply(PATCH, t)
    msg = str(info.value)
    assert "CudaGraphRunner" in msg and WORKER in msg and "\n" not in msg
    assert {k: v for k, v in _snapshot(t).items() if not k.startswith(".patchkit/")} == before
