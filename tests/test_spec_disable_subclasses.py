"""dynamic-spec-disable 2.0: the worker classes that inherit EAGLEWorkerV2 are found from the code
(``subclasses``), each constructor that skips ``EAGLEWorkerV2.__init__`` gets the threshold
assignment (the field bug of issue 14: STANDALONE died with the flag off), and the gate invariant
catches a tree where one does not."""
from __future__ import annotations

import ast
import re

import pytest

from conftest import release
from patchkit import engine, registry
from patchkit.lint import new_problems
from patches.dynamic_spec_disable import (ALIAS, ATTR, CLS, WORKER, _every_subclass_assigns, subclasses)

PATCH = "dynamic-spec-disable"


def _host(read) -> str:
    """The method of EAGLEWorkerV2 that builds the runtime states (0.5.12-0.5.13: __init__)."""
    node = next(n for n in ast.parse(read(WORKER)).body if isinstance(n, ast.ClassDef) and n.name == CLS)
    names = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
    return "init_cuda_graphs" if "init_cuda_graphs" in names else "__init__"


def _found(version: str):
    read = engine.reader(release(version))
    return {s.name: s for s in subclasses(read, _host(read))}


def _subclasses_by_scan(version: str) -> set[str]:
    """Independently of ``subclasses``: every class in sglang/srt whose bases reach EAGLEWorkerV2,
    by scanning every file that names it (transitively, to a fixed point)."""
    root = release(version).root / "sglang" / "srt"
    known, found = {CLS}, set()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in root.rglob("*.py")]
    texts = [t for t in texts if "WorkerV2" in t]
    changed = True
    while changed:
        changed = False
        for text in texts:
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ClassDef) and node.name not in found and any(
                        ast.unparse(b).split(".")[-1] in known for b in node.bases):
                    found.add(node.name)
                    known.add(node.name)
                    changed = True
    return found


@pytest.mark.network
def test_0_5_12_finds_standalone_that_skips_init():
    found = _found("0.5.12")
    assert set(found) == {"StandaloneWorkerV2"}
    s = found["StandaloneWorkerV2"]
    assert s.skips_init and not s.own_forward and s.server_args == "server_args"
    assert s.file == "sglang/srt/speculative/standalone_worker_v2.py"
    # 0.5.12 builds its states in __init__ (no init_cuda_graphs): the subclass skips the host too
    assert s.skips_host


@pytest.mark.network
def test_0_5_16_finds_standalone_and_frozen_kv_mtp():
    found = _found("0.5.16")
    assert set(found) == {"StandaloneWorkerV2", "FrozenKVMTPWorkerV2"}
    assert found["StandaloneWorkerV2"].skips_init and not found["StandaloneWorkerV2"].own_forward
    assert found["FrozenKVMTPWorkerV2"].skips_init and found["FrozenKVMTPWorkerV2"].own_forward
    assert "refused at start-up" in found["FrozenKVMTPWorkerV2"].support()
    assert not found["StandaloneWorkerV2"].skips_host  # it inherits init_cuda_graphs


@pytest.mark.network
def test_0_5_23_finds_what_0_5_16_does():
    # 0.5.23 (create_worker imports the workers inside the method): the same two classes, the
    # same shape as on 0.5.16
    found = _found("0.5.23")
    assert {n: (s.skips_init, s.skips_host, s.own_forward) for n, s in found.items()} == {
        "StandaloneWorkerV2": (True, False, False), "FrozenKVMTPWorkerV2": (True, False, True)}


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.12", "0.5.14", "0.5.16", "0.5.20", "0.5.23"])
def test_discovery_misses_no_subclass_a_full_scan_finds(version):
    assert set(_found(version)) == _subclasses_by_scan(version)


def test_discovery_on_a_synthetic_release():
    """Chained and indirect subclasses, explicit base __init__ calls, own forward methods."""
    files = {
        "sglang/srt/speculative/spec_info.py":
            "def create_worker(self):\n"
            "    from sglang.srt.speculative.a_worker import A\n"
            "    from sglang.srt.speculative.b_worker import B, C\n",
        "sglang/srt/speculative/a_worker.py":
            "from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2\n"
            "class A(EAGLEWorkerV2):\n"
            "    def __init__(self, server_args):\n        super().__init__(server_args)\n",
        "sglang/srt/speculative/b_worker.py":
            "from sglang.srt.speculative import eagle_worker_v2 as ew\nfrom sglang.srt.speculative.a_worker import A\n"
            "class B(ew.EAGLEWorkerV2):\n"
            "    def __init__(self, args):\n        self.server_args = args\n"
            "    def init_cuda_graphs(self):\n        pass\n"
            "class C(B):\n"
            "    def __init__(self, server_args):\n        B.__init__(self, server_args)\n"
            "    def forward_batch_generation(self, batch):\n        return batch\n"
            "class D(object):\n    pass\n",
    }
    found = {s.name: s for s in subclasses(files.get, "init_cuda_graphs")}
    assert set(found) == {"A", "B", "C"}
    assert not found["A"].skips_init and found["A"].server_args == "server_args"
    assert found["B"].skips_init and found["B"].server_args == "self.server_args" and found["B"].skips_host
    assert found["B"].base == "ew.EAGLEWorkerV2"
    assert not found["C"].skips_init and found["C"].own_forward and not found["C"].skips_host


def _init_body(text: str, cls: str) -> list[str]:
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == cls)
    init = next(f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    return [ast.unparse(s) for s in init.body]


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.12", "0.5.16", "0.5.23"])
def test_applied_patch_assigns_the_threshold_in_every_subclass_that_skips_init(sglang_scratch, version):
    t = sglang_scratch(version)
    pristine = engine.reader(t)
    subs = subclasses(pristine, _host(pristine))
    before = {s.file: pristine(s.file) for s in subs}
    assert _every_subclass_assigns(pristine) is not None, "the invariant passes an unpatched tree"
    engine.apply(registry.patch(PATCH), t)
    read = engine.reader(t)
    assert [s.name for s in subclasses(read, _host(read))] == [s.name for s in subs]
    skipping = [s for s in subs if s.skips_init]
    assert skipping, f"{version}: no subclass skips EAGLEWorkerV2.__init__ (the test proves nothing)"
    for s in skipping:
        text = read(s.file)
        body = _init_body(text, s.name)
        want = f"self.{ATTR} = {ALIAS}.resolve_threshold({s.server_args})"
        assert want in body, f"{s.file}: {s.name}.__init__ does not assign self.{ATTR}"
        # assigned once the constructor has its server args, before anything can read it
        anchors = [i for i, line in enumerate(body)
                   if re.match(r"self\.(speculative_num_draft_tokens|server_args) = ", line)]
        assert anchors and anchors[0] < body.index(want)
        if s.skips_host:
            assert body[-1] == f"{ALIAS}.on_init(self, {s.base})", f"{s.name}: no on_init at the end of __init__"
        else:
            assert not any(".on_init(" in line for line in body)
        assert any("patchkit_spec_disable" in ast.unparse(n) for n in ast.parse(text).body
                   if isinstance(n, ast.ImportFrom)), f"{s.file}: the runtime module is not imported"
        assert new_problems(s.file, before[s.file], text) == []
    assert _every_subclass_assigns(read) is None


@pytest.mark.network
@pytest.mark.parametrize("version", ["0.5.12", "0.5.16"])
def test_invariant_names_the_subclass_whose_assignment_was_deleted(sglang_scratch, version):
    t = sglang_scratch(version)
    engine.apply(registry.patch(PATCH), t)
    rel = "sglang/srt/speculative/standalone_worker_v2.py"
    text = t.file(rel).read_text()
    lines = [line for line in text.splitlines(True) if f"self.{ATTR} =" not in line]
    assert len(lines) == len(text.splitlines(True)) - 1, "expected exactly one assignment to delete"
    t.file(rel).write_text("".join(lines))
    msg = _every_subclass_assigns(engine.reader(t))
    assert msg is not None and "StandaloneWorkerV2" in msg and rel in msg and ATTR in msg
